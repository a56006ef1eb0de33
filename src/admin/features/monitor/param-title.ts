/**
 * A param's name in the language shown. The seed and the monitoring pages store a known param
 * (one the locales name as params.<key>) under its Chinese name; while the stored name is still
 * that one, the name is shown in the user's language. A param added by hand, or a known one the
 * administrator renamed, shows the name the administrator gave it, as typed, in every language.
 */
export interface NamedParam {
  paramKey: string;
  paramName: string;
}

/**
 * `defaultNames`: the name each known param is stored under (GET monitor/config's
 * `paramNames`); `translated`: the locales' text of params.<key> in the language shown, if any.
 */
export function paramTitle(
  param: NamedParam,
  defaultNames: Readonly<Record<string, string>>,
  translated: (key: string) => string | undefined,
): string {
  const stored = param.paramName.trim();
  const isDefaultName =
    Object.hasOwn(defaultNames, param.paramKey) && defaultNames[param.paramKey] === stored;
  if (isDefaultName || stored === '') return translated(`params.${param.paramKey}`) ?? param.paramName;
  return param.paramName;
}
