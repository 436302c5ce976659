// A node's text overlays over the view, as the lecturer's narrative shows them. The text
// is the author's rich text; before it reaches the DOM it goes through DOMPurify with an
// allow-list of text markup and no attributes at all, so no script, handler, link, style
// or picture in a narrative can act in a student's browser (and the page's
// Content-Security-Policy forbids inline script besides).

import DOMPurify from "dompurify";

const TEXT_TAGS = ["h1", "h2", "h3", "h4", "p", "br", "b", "strong", "i", "em", "u", "sub", "sup", "small", "ul", "ol", "li", "span", "div"];

/** The text as a DOM fragment of allowed markup only (never a string parsed as HTML by the page). */
export function sanitisedOverlayText(text) {
  return DOMPurify.sanitize(text, { ALLOWED_TAGS: TEXT_TAGS, ALLOWED_ATTR: [], RETURN_DOM_FRAGMENT: true });
}

export class OverlayLayer {
  constructor(container) {
    this.container = container;
    this.shownKey = null;
  }

  /** Shows `node`'s text overlays (of narrative `index`) at `alpha`; null hides them. */
  show(index, node, alpha) {
    const key = node ? `${index}:${node.index}` : null;
    if (key !== this.shownKey) {
      this.container.replaceChildren();
      if (node) {
        for (const o of [...node.overlays].sort((a, b) => a.z - b.z)) {
          const box = document.createElement("div");
          box.className = "overlay";
          box.style.left = `${100 * o.rect.x}%`;
          box.style.top = `${100 * o.rect.y}%`;
          box.style.width = `${100 * o.rect.width}%`;
          box.style.minHeight = `${100 * o.rect.height}%`;
          box.appendChild(sanitisedOverlayText(o.text));
          this.container.appendChild(box);
        }
      }
      this.shownKey = key;
    }
    this.container.style.opacity = node ? String(alpha) : "0";
  }
}
