/**
 * A text matching a simple regular expression, for the generated test's samples (issue 35): a
 * field whose pattern none of the generator's stock texts match (`^\+[1-9][0-9]{0,3}$`,
 * `^ROLE_[A-Z0-9_]+$`, `^/api(/…)*\/…$`) gets one built from the pattern itself. Handles
 * literals, escapes (\d \w \s and escaped punctuation), character classes with ranges, groups
 * with alternatives, and the quantifiers ? * + {m} {m,} {m,n}; anything else (look-arounds,
 * back-references, negated classes) yields undefined. `variant` n picks the n-th member of each
 * class (and the n-th alternative), as far as there are, so the samples differ.
 */
export function patternSample(pattern: string, variant: number): string | undefined {
  let at = 0;
  const fail = (): never => {
    throw new Error('unsupported');
  };
  const peek = (): string | undefined => pattern[at];

  const classMembers = (): string[] => {
    // After '['.
    if (peek() === '^') fail();
    const members: string[] = [];
    let first = true;
    while (at < pattern.length && (peek() !== ']' || first)) {
      first = false;
      let char = pattern[at++] ?? fail();
      if (char === '\\') char = escapeMembers(pattern[at++] ?? fail())[0] ?? fail();
      if (peek() === '-' && pattern[at + 1] !== undefined && pattern[at + 1] !== ']') {
        at += 1;
        let end = pattern[at++] ?? fail();
        if (end === '\\') end = pattern[at++] ?? fail();
        for (let code = char.charCodeAt(0); code <= end.charCodeAt(0); code += 1)
          members.push(String.fromCharCode(code));
      } else members.push(char);
    }
    if (peek() !== ']') fail();
    at += 1;
    return members;
  };

  const escapeMembers = (char: string): string[] => {
    if (char === 'd') return ['1', '2', '3', '4'];
    if (char === 'w') return ['a', 'b', 'c', 'd'];
    if (char === 's') return [' '];
    if (/[A-Za-z0-9]/.test(char)) fail();
    return [char];
  };

  // An atom's possible texts: each is one choice (the first two are enough for two variants).
  const atom = (): string[] => {
    const char = pattern[at++] ?? fail();
    if (char === '(') {
      if (peek() === '?') {
        if (pattern[at + 1] !== ':') fail();
        at += 2;
      }
      const alternatives = alternation();
      if (peek() !== ')') fail();
      at += 1;
      return alternatives;
    }
    if (char === '[') return classMembers();
    if (char === '\\') return escapeMembers(pattern[at++] ?? fail());
    if (char === '.') return ['a', 'b', 'c', 'd'];
    if ('*+?{|)'.includes(char)) fail();
    return [char];
  };

  const quantified = (): { choices: string[]; count: number } => {
    const choices = atom();
    const char = peek();
    if (char === '?' || char === '*') {
      at += 1;
      return { choices, count: 0 };
    }
    if (char === '+') {
      at += 1;
      return { choices, count: 1 };
    }
    if (char === '{') {
      const match = /^\{(\d+)(,\d*)?\}/.exec(pattern.slice(at));
      if (!match) fail();
      at += match?.[0].length ?? 0;
      return { choices, count: Number(match?.[1]) };
    }
    return { choices, count: 1 };
  };

  const VARIANTS = [0, 1, 2, 3];
  const pick = (choices: string[], index: number): string =>
    choices[Math.min(index, choices.length - 1)] ?? fail();

  // A sequence: its text for each variant.
  const sequence = (): string[] => {
    let texts = VARIANTS.map(() => '');
    while (at < pattern.length && peek() !== '|' && peek() !== ')') {
      if (peek() === '^' || peek() === '$') {
        at += 1;
        continue;
      }
      const { choices, count } = quantified();
      texts = texts.map((text, index) => text + pick(choices, index).repeat(count));
    }
    return texts;
  };

  const alternation = (): string[] => {
    const options = [sequence()];
    while (peek() === '|') {
      at += 1;
      options.push(sequence());
    }
    const first = options[0] ?? fail();
    return VARIANTS.map((index) => options[index]?.[0] ?? pick(first, index));
  };

  try {
    const texts = alternation();
    if (at !== pattern.length) return undefined;
    const text = texts[Math.min(variant, texts.length - 1)] ?? '';
    return new RegExp(pattern, 'u').test(text) ? text : undefined;
  } catch {
    return undefined;
  }
}
