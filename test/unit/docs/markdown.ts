/** What the link test reads from Markdown: its links (outside code) and the anchors it defines. */

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function writeHeadingSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]+>/g, '')
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Explicit `<a id>`/`name` anchors and heading slugs, with GitHub's -1, -2 … for repeats. */
export function readAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]!);
  for (const line of stripCode(markdown, false).split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = writeHeadingSlug(heading[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1'));
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** Inline links `[text](target)` outside fenced and inline code, with their line numbers. */
export function readLinks(markdown: string): Array<{ target: string; line: number }> {
  const links: Array<{ target: string; line: number }> = [];
  stripCode(markdown).split('\n').forEach((text, i) => {
    for (const m of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) links.push({ target: m[1]!, line: i + 1 });
  });
  return links;
}

/** Blanks fenced blocks (and inline code unless `inline` is false), keeping the line count. */
function stripCode(markdown: string, inline = true): string {
  let fenced = false;
  return markdown
    .split('\n')
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) {
        fenced = !fenced;
        return '';
      }
      if (fenced) return '';
      return inline ? line.replace(/`[^`]*`/g, '``') : line;
    })
    .join('\n');
}
