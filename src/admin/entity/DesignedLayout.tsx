import type { FormValidation, ObjectFieldTemplateProps, RJSFSchema, RJSFValidationError } from '@rjsf/utils';
import { Col, Divider, Row, Typography } from 'antd';
import type { ReactNode } from 'react';
import { hiddenByConditions } from '../../engine/conditions.js';
import type { EntitySchema, LayoutItem, Titles } from '../../engine/types.js';
import './entity.css';

type Values = Record<string, unknown>;

/** A label in the user's language: its own translation, else the English title. */
export function titleIn(
  item: { title?: string; titles?: Titles | undefined },
  language: keyof Titles,
): string {
  return item.titles?.[language] ?? item.title ?? item.titles?.en ?? '';
}

/**
 * The fields hidden by their visibility condition (root allOf: shown while another field equals
 * a value) for these values: the engine's rule, the server's too (engine/conditions.ts).
 */
export function hiddenFields(schema: EntitySchema, values: Readonly<Record<string, unknown>>): Set<string> {
  return hiddenByConditions(schema, values);
}

/** Whether a schema was designed (a root layout or visibility conditions): its form follows them. */
export function isDesigned(schema: EntitySchema): boolean {
  return schema['x-ui'] !== undefined || (schema.allOf?.length ?? 0) > 0;
}

/** What the layout template reads from RJSF's form context. */
export interface DesignedLayout {
  items: LayoutItem[] | undefined;
  hidden: ReadonlySet<string>;
  spans: ReadonlyMap<string, number | undefined>;
  language: keyof Titles;
  /** Phone width: grid columns stack. */
  isNarrow: boolean;
}

/** The form context of a designed form: its layout, and antd's label columns for a horizontal one. */
export function designedContext(schema: EntitySchema, layout: DesignedLayout): Record<string, unknown> {
  const formUi = schema['x-ui'] ?? {};
  const isHorizontal = !layout.isNarrow && formUi.layout === 'horizontal';
  return {
    ...layout,
    ...(isHorizontal ? { labelCol: { flex: `${formUi.labelWidth ?? 100}px` }, wrapperCol: { flex: 1 } } : {}),
  };
}

/** The designed layout: grid rows, groups, dividers and texts around RJSF's fields. */
function LayoutObjectTemplate(props: ObjectFieldTemplateProps<Values, RJSFSchema, DesignedLayout>) {
  const layout = props.registry.formContext as DesignedLayout;
  const byName = new Map(props.properties.map((property) => [property.name, property]));
  const placed = new Set<string>();
  const render = (items: readonly LayoutItem[], isInColumn: boolean): ReactNode[] =>
    items.map((item, index) => {
      if (typeof item === 'string') {
        placed.add(item);
        const property = byName.get(item);
        if (!property || property.hidden || layout.hidden.has(item)) return null;
        return (
          <Col key={item} span={isInColumn ? 24 : (layout.spans.get(item) ?? 24)}>
            {property.content}
          </Col>
        );
      }
      switch (item.kind) {
        case 'grid':
          return (
            <Col key={`grid-${index}`} span={24}>
              <Row gutter={16}>
                {item.columns.map((column, n) => (
                  <Col key={n} span={layout.isNarrow ? 24 : column.span}>
                    <Row>{render(column.items, true)}</Row>
                  </Col>
                ))}
              </Row>
            </Col>
          );
        case 'group':
          return (
            <Col key={`group-${index}`} span={24}>
              <fieldset className="designed-group">
                <legend>{titleIn(item, layout.language)}</legend>
                <Row gutter={16}>{render(item.items, false)}</Row>
              </fieldset>
            </Col>
          );
        case 'divider':
          return (
            <Col key={`divider-${index}`} span={24}>
              <Divider orientation="left">{titleIn(item, layout.language)}</Divider>
            </Col>
          );
        case 'text':
          return (
            <Col key={`text-${index}`} span={24}>
              <Typography.Paragraph>{item.titles?.[layout.language] ?? item.text}</Typography.Paragraph>
            </Col>
          );
      }
      return null;
    });
  const cells = render(layout.items ?? [], false);
  // Fields the layout does not place follow it, as in the schema.
  for (const property of props.properties) {
    if (placed.has(property.name) || property.hidden || layout.hidden.has(property.name)) continue;
    cells.push(
      <Col key={property.name} span={layout.spans.get(property.name) ?? 24}>
        {property.content}
      </Col>,
    );
  }
  return <Row gutter={16}>{cells}</Row>;
}

export const DESIGNED_TEMPLATES = { ObjectFieldTemplate: LayoutObjectTemplate };

/** The values without those of hidden fields: the server refuses a hidden field's value. */
export function withoutHidden(schema: EntitySchema, values: Values): Values {
  const hidden = hiddenFields(schema, values);
  if (hidden.size === 0) return values;
  const kept = { ...values };
  for (const name of hidden) delete kept[name];
  return kept;
}

/** Errors of hidden fields are not shown (their values are cleared and never sent). */
export function visibleErrors(
  hidden: ReadonlySet<string>,
  errors: RJSFValidationError[],
): RJSFValidationError[] {
  return errors.filter((error) => !hidden.has((error.property ?? '').replace(/^\./, '').split('.')[0] ?? ''));
}

/** Required while shown (a condition's then): the server checks the same branch. */
export function addConditionErrors(
  schema: EntitySchema,
  hidden: ReadonlySet<string>,
  values: Values | undefined,
  errors: FormValidation<Values>,
  message: (field: string) => string,
): FormValidation<Values> {
  for (const entry of schema.allOf ?? []) {
    for (const name of entry.then?.required ?? []) {
      const value = values?.[name];
      if (hidden.has(name) || (value !== undefined && value !== '' && value !== null)) continue;
      (errors as unknown as Record<string, { addError: (text: string) => void } | undefined>)[name]?.addError(
        message(name),
      );
    }
  }
  return errors;
}
