#!/usr/bin/env python3
"""check_page.py - checks a page as headless Chromium rendered it.

    check_page.py DOM PAGE_DIR CHROMIUM_LOG

DOM is the document Chromium serialised after loading the page
(--dump-dom); PAGE_DIR is where the page lives; CHROMIUM_LOG is Chromium's
stderr with --enable-logging=stderr --v=0. Fails (exit 1, one line per
problem) when:
  - Chromium logged a console message at all (the dashboard has no script,
    so any is an error: a script error, a blocked or failed load it chose
    to report);
  - an <img> (or an <object>'s data) has no src, points outside PAGE_DIR,
    is absolute (http:, file:, /...), or names a file that does not exist
    or is not a PNG (an SVG for .svg);
  - a <link rel=stylesheet> or a relative <a href> (not #anchor) names a
    file that does not exist; an #anchor has no element with that id (an
    http(s) link, a commit on its forge, is counted and not followed);
  - the DOM has no <h1> (nothing rendered).
Prints the number of images, links and anchors checked.
"""
import html.parser
import os
import re
import sys
import urllib.parse

PNG = b"\x89PNG\r\n\x1a\n"


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.imgs, self.links, self.anchors, self.ids, self.h1, self.external = [], [], [], set(), 0, 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "img":
            self.imgs.append(a.get("src"))
        elif tag == "object":
            self.imgs.append(a.get("data"))
        elif tag == "link" and a.get("rel") == "stylesheet":
            self.links.append(a.get("href"))
        elif tag == "a" and a.get("href"):
            href = a["href"]
            if re.match(r"https?://", href):
                self.external += 1  # a commit's page on its forge: not the page's to check
            else:
                (self.anchors if href.startswith("#") else self.links).append(href)
        elif tag == "h1":
            self.h1 += 1


def local(root, ref, problems, what):
    if not ref:
        problems.append(f"{what} without a target")
        return None
    u = urllib.parse.urlparse(ref)
    if u.scheme or u.netloc or ref.startswith("/"):
        problems.append(f"{what} '{ref}' is not relative")
        return None
    path = os.path.normpath(os.path.join(root, urllib.parse.unquote(u.path)))
    if not path.startswith(os.path.normpath(root) + os.sep):
        problems.append(f"{what} '{ref}' points outside the page's directory")
        return None
    if not os.path.isfile(path):
        problems.append(f"{what} '{ref}' does not exist")
        return None
    return path


def main():
    dom_file, root, log_file = sys.argv[1:4]
    with open(dom_file, encoding="utf-8") as f:
        page = Page()
        page.feed(f.read())
    problems = []
    with open(log_file, encoding="utf-8", errors="replace") as f:
        for line in f:
            if re.search(r":CONSOLE[:(]", line):
                problems.append("console: " + line.strip())
    if not page.h1:
        problems.append("no <h1>: the page did not render")
    for src in page.imgs:
        path = local(root, src, problems, "image")
        if path:
            with open(path, "rb") as f:
                head = f.read(8)
                f.seek(0)
                whole = f.read()
            if src.endswith(".svg"):
                if not (head.startswith(b"<?xml") and whole.rstrip().endswith(b"</svg>")):
                    problems.append(f"image '{src}' is not an SVG")
            elif head != PNG:
                problems.append(f"image '{src}' is not a PNG")
    for href in page.links:
        local(root, href, problems, "link")
    for a in page.anchors:
        if a[1:] not in page.ids:
            problems.append(f"anchor '{a}' has no target")
    for p in problems:
        print(p)
    print(f"checked {len(page.imgs)} images, {len(page.links)} links, {len(page.anchors)} anchors"
          + (f" ({page.external} external links not followed)" if page.external else ""))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
