"""Whether a page fits its window, read in the browser: no horizontal scrolling (and if there
is, the widest element that sticks out), every name on one line, every tap target big enough.

Each check measures the laid-out page (``getBoundingClientRect``, ``Range.getClientRects``);
none depends on time, so a loaded machine gives the same verdict as an idle one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from playwright.sync_api import Page

# Everything the pages mark as a name (a bot's, a version's, a person's): the templates' and
# the scripts' own classes for one.
NAMES: Final = ".name, .bot, .rp-name"
# The smallest side of a thing to tap (Apple's Human Interface Guidelines and WCAG 2.5.5).
MIN_TAP_PX: Final = 44

_DESCRIBE: Final = """function describe(node) {
  let text = node.tagName.toLowerCase();
  if (node.id) text += "#" + node.id;
  if (typeof node.className === "string" && node.className.trim()) {
    text += "." + node.className.trim().split(/\\s+/).join(".");
  }
  return text;
}"""


def _script(params: str, body: str) -> str:
    """A function for ``page.evaluate`` of ``params``, with ``describe(node)`` in scope."""
    return f"({params}) => {{\n{_DESCRIBE}\n{body}\n}}"


# The page's own horizontal overflow (its scrolling element wider than the window's layout
# width; on a phone that is the width the page was laid out at, not the zoomed-out window),
# and the widest element that sticks out past it, not counting those inside a box that clips
# or scrolls its content (that box is the one to blame, if it sticks out itself).
_OVERFLOW: Final = _script(
    "",
    """  const root = document.scrollingElement;
  const limit = root.clientWidth;
  if (root.scrollWidth <= limit) return null;
  function clipped(node) {
    for (let up = node.parentElement; up && up !== document.body; up = up.parentElement) {
      if (getComputedStyle(up).overflowX !== "visible") return true;
    }
    return false;
  }
  let widest = null;
  let width = 0;
  for (const node of document.body.querySelectorAll("*")) {
    const box = node.getBoundingClientRect();
    if (box.right + window.scrollX > limit + 1 && box.width > width && !clipped(node)) {
      widest = node;
      width = box.width;
    }
  }
  const what = widest ? describe(widest) + " (" + Math.round(width) + " px wide)" : "none found";
  return "the page is " + root.scrollWidth + " px wide in a window of " + limit +
    " px; the widest element sticking out: " + what;""",
)

# Each shown name whose text takes more than one line (line boxes that do not overlap
# vertically), and each name cut short (an ellipsis) that no title around it holds whole.
_NAMES: Final = _script(
    "selector",
    """  const found = [];
  for (const node of document.querySelectorAll(selector)) {
    if (!node.getClientRects().length) continue;  // not shown
    const range = document.createRange();
    range.selectNodeContents(node);
    const boxes = [...range.getClientRects()].filter(b => b.width > 0 && b.height > 0);
    boxes.sort((a, b) => a.top - b.top);
    let lines = 0;
    let bottom = -Infinity;
    for (const box of boxes) {
      if (box.top >= bottom - 1) lines += 1;
      bottom = Math.max(bottom, box.bottom);
    }
    const text = node.textContent.trim();
    if (lines > 1) {
      found.push(describe(node) + " " + JSON.stringify(text) + " takes " + lines + " lines");
    } else if (node.scrollWidth > node.clientWidth + 1 && node.clientWidth > 0 &&
               !(node.closest("[title]")?.title || "").includes(text)) {
      found.push(describe(node) + " " + JSON.stringify(text) + " is cut short with no title");
    }
  }
  return found;""",
)

# Each shown, enabled element matching the selector smaller than the tap size on a side.
_SMALL: Final = _script(
    "[selector, least]",
    """  const found = [];
  for (const node of document.querySelectorAll(selector)) {
    const box = node.getBoundingClientRect();
    if (node.disabled || !box.width) continue;
    if (box.width < least || box.height < least) {
      found.push(describe(node) + " " + JSON.stringify(node.textContent.trim()) + " is " +
        Math.round(box.width) + "x" + Math.round(box.height) + " px");
    }
  }
  return found;""",
)

# Each shown container of the selector whose items (cards of a hand) take more than one row.
_WRAPPED: Final = _script(
    "[containers, items]",
    """  const found = [];
  for (const node of document.querySelectorAll(containers)) {
    const tops = new Set([...node.querySelectorAll(items)]
      .map(item => item.getBoundingClientRect())
      .filter(box => box.width > 0)
      .map(box => Math.round(box.top)));
    if (tops.size > 1) found.push(describe(node) + " takes " + tops.size + " rows");
  }
  return found;""",
)


def overflow(page: Page) -> str | None:
    """What sticks out of the page's window sideways (None: nothing, no horizontal scroll)."""
    found: str | None = page.evaluate(_OVERFLOW)
    return found


def broken_names(page: Page) -> list[str]:
    """Every shown name laid out on more than one line, or cut short without a title."""
    found: list[str] = page.evaluate(_NAMES, NAMES)
    return found


def names_shown(page: Page) -> int:
    count: int = page.locator(NAMES).count()
    return count


def small_targets(page: Page, selector: str) -> list[str]:
    """Every enabled element of ``selector`` shown smaller than :data:`MIN_TAP_PX` a side."""
    found: list[str] = page.evaluate(_SMALL, [selector, MIN_TAP_PX])
    return found


def wrapped(page: Page, containers: str, items: str) -> list[str]:
    """Every shown element of ``containers`` whose ``items`` are laid out on more than one row."""
    found: list[str] = page.evaluate(_WRAPPED, [containers, items])
    return found
