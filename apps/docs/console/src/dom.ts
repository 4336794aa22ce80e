/**
 * A small element builder, so the console's markup reads as a tree. Text is always set as text
 * (never parsed as HTML), so nothing a server answers can become markup.
 *
 * @module
 */

/** A child of {@link h}: nodes, text, or nothing (skipped). */
export type Child = Node | string | null | undefined | false;

/** Attributes of {@link h}: `on<event>` adds a listener; `true` sets an empty attribute. */
export type Props = Record<string, string | boolean | EventListener | undefined>;

/** `document.createElement(tag)` with attributes, listeners and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else if (value === true) element.setAttribute(name, '');
    else if (typeof value === 'string') element.setAttribute(name, value);
  }
  element.append(...children.filter((child): child is Node | string => !!child || child === ''));
  return element;
}

let counter = 0;

/** A document-unique id, for `for`, `aria-labelledby` and `aria-describedby`. */
export function uniqueId(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}`;
}
