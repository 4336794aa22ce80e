/**
 * Copying a snippet. The Clipboard API, like Web Crypto, exists only in secure contexts; where it
 * is missing (a page over plain http on a LAN address) the snippets must still be copyable, so
 * the text is selected in a hidden field and copied the older way.
 *
 * @module
 */

/** Copies `text`; resolves to whether the browser says it did. */
export async function copyText(text: string): Promise<boolean> {
  if (navigator.clipboard?.writeText) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // refused (permissions): try the older way
    }
  }
  const field = document.createElement('textarea');
  field.value = text;
  field.setAttribute('readonly', '');
  field.style.cssText = 'position:fixed;top:0;left:0;opacity:0';
  // Inside the open dialog: a modal dialog makes the rest of the page inert, and inert text
  // cannot be selected.
  (document.querySelector('dialog[open]') ?? document.body).append(field);
  field.select();
  try {
    // Deprecated, but the only way left outside a secure context.
    return document.execCommand('copy');
  } finally {
    field.remove();
  }
}
