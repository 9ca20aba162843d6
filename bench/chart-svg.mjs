// The benchmark's chart as a self-contained SVG (no library, nothing fetched): on the left the
// median calls/s of each contender, sequential and in flight; on the right the sequential calls/s
// round by round, which shows whether a contender degrades as calls accumulate.
const COLORS = ['#4c78a8', '#f58518', '#54a24b', '#e45756', '#72b7b2', '#b279a2'];
const escape = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)];
};

export function chartSvg(rows, { inFlight }) {
  const width = 960;
  const height = 420;
  const top = 50;
  const bottom = 330;
  const parts = [];
  const text = (x, y, value, attrs = '') => parts.push(`<text x="${x}" y="${y}" ${attrs}>${escape(value)}</text>`);

  // Left: grouped bars.
  const left = { x: 60, w: 400 };
  const bars = rows.flatMap((r) => [median(r.seq), median(r.conc)]);
  const maxBar = Math.max(...bars) * 1.1;
  const groupW = left.w / 2;
  const barW = (groupW - 30) / rows.length;
  text(left.x, 30, 'median calls/s', 'font-weight="bold"');
  ['sequential', `${inFlight} in flight`].forEach((label, g) => {
    rows.forEach((r, i) => {
      const value = g === 0 ? median(r.seq) : median(r.conc);
      const h = ((bottom - top) * value) / maxBar;
      const x = left.x + g * groupW + 10 + i * barW;
      parts.push(
        `<rect x="${x.toFixed(1)}" y="${(bottom - h).toFixed(1)}" width="${(barW - 4).toFixed(1)}" height="${h.toFixed(1)}" fill="${COLORS[i % COLORS.length]}"/>`,
      );
      text(
        (x + barW / 2 - 2).toFixed(1),
        (bottom - h - 4).toFixed(1),
        Math.round(value).toLocaleString('en-US'),
        'font-size="10" text-anchor="middle"',
      );
    });
    text(left.x + g * groupW + groupW / 2, bottom + 18, label, 'text-anchor="middle"');
  });
  parts.push(`<line x1="${left.x}" y1="${bottom}" x2="${left.x + left.w}" y2="${bottom}" stroke="#333"/>`);

  // Right: sequential calls/s per round.
  const right = { x: 540, w: 380 };
  const all = rows.flatMap((r) => r.seq);
  const maxLine = Math.max(...all) * 1.1;
  const rounds = Math.max(...rows.map((r) => r.seq.length));
  const xAt = (i) => right.x + (rounds <= 1 ? 0 : (right.w * i) / (rounds - 1));
  const yAt = (v) => bottom - ((bottom - top) * v) / maxLine;
  text(right.x, 30, 'sequential calls/s, round by round', 'font-weight="bold"');
  parts.push(`<line x1="${right.x}" y1="${bottom}" x2="${right.x + right.w}" y2="${bottom}" stroke="#333"/>`);
  parts.push(`<line x1="${right.x}" y1="${top}" x2="${right.x}" y2="${bottom}" stroke="#333"/>`);
  text(right.x - 6, yAt(maxLine / 1.1) + 4, Math.round(maxLine / 1.1).toLocaleString('en-US'), 'font-size="10" text-anchor="end"');
  text(right.x - 6, bottom + 4, '0', 'font-size="10" text-anchor="end"');
  for (let i = 0; i < rounds; i += 1) text(xAt(i), bottom + 18, String(i + 1), 'font-size="10" text-anchor="middle"');
  text(right.x + right.w / 2, bottom + 34, 'round', 'text-anchor="middle"');
  rows.forEach((r, i) => {
    const points = r.seq.map((v, j) => `${xAt(j).toFixed(1)},${yAt(v).toFixed(1)}`).join(' ');
    parts.push(`<polyline points="${points}" fill="none" stroke="${COLORS[i % COLORS.length]}" stroke-width="2"/>`);
  });

  // Legend.
  rows.forEach((r, i) => {
    const x = 60 + (i % 2) * 440;
    const y = 375 + Math.floor(i / 2) * 20;
    parts.push(`<rect x="${x}" y="${y - 10}" width="12" height="12" fill="${COLORS[i % COLORS.length]}"/>`);
    text(x + 18, y, r.name);
  });

  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="#fff"/>
${parts.join('\n')}
</svg>
`;
}
