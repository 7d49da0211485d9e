// Draws the results of `npm run bench:dispatch` as one SVG (no dependencies):
//   node bench/dispatch/chart.js [bench/results/dispatch.json] [bench/results/dispatch.svg]
// Left: fan-out deliveries/s beside the bare undici loop, with the goals (5,000/s and 0.4 × the loop).
// Right: healthy-webhook latency p99 per 5 s window for both latency scenarios, with the goals (50 / 100 ms).
import { readFileSync, writeFileSync } from 'node:fs';

const [input = 'bench/results/dispatch.json', output = 'bench/results/dispatch.svg'] = process.argv.slice(2);

export function dispatchChart(results) {
  const W = 1050;
  const H = 340;
  const parts = [];
  const text = (x, y, s, attrs = '') =>
    parts.push(`<text x="${x}" y="${y}" ${attrs}>${String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;')}</text>`);
  const line = (x1, y1, x2, y2, attrs) => parts.push(`<line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" ${attrs}/>`);
  const fmt = (n) => Math.round(n).toLocaleString('en-US');

  // ---- left panel: throughput ----
  const fan = results.fanOut;
  if (fan) {
    const x0 = 70;
    const y0 = 280;
    const h = 220;
    const perCore = fan.onePerCore;
    const highest = Math.max(
      fan.bareUndiciLoopPerSecond,
      fan.dispatcherDeliveriesPerSecond,
      perCore?.dispatcherDeliveriesPerSecond ?? 0,
    );
    const max = Math.ceil((highest * 1.1) / 2000) * 2000;
    const y = (v) => y0 - (v / max) * h;
    text(20, 30, 'Fan-out, deliveries/s (2 cores)', 'font-weight="bold"');
    for (let v = 0; v <= max; v += 2000) {
      line(x0, y(v), x0 + 300, y(v), 'stroke="#e5e7eb"');
      text(x0 - 8, y(v) + 4, fmt(v), 'text-anchor="end" font-size="11" fill="#6b7280"');
    }
    const processes = fan.dispatcherProcesses ?? 1;
    const bars = [
      [`dispatcher ×${processes}`, fan.dispatcherDeliveriesPerSecond, '#2563eb'],
      ...(perCore
        ? [[`dispatcher ×${perCore.dispatcherProcesses}`, perCore.dispatcherDeliveriesPerSecond, '#1e40af']]
        : []),
      ['bare undici loop', fan.bareUndiciLoopPerSecond, '#9ca3af'],
    ];
    bars.forEach(([label, value, color], i) => {
      const bx = x0 + 15 + i * 95;
      parts.push(`<rect x="${bx}" y="${y(value)}" width="75" height="${y0 - y(value)}" fill="${color}"/>`);
      text(bx + 37, y(value) - 6, fmt(value), 'text-anchor="middle" font-size="12"');
      text(bx + 37, y0 + 16, label, 'text-anchor="middle" font-size="12"');
    });
    const goal = Math.max(5000, 0.4 * fan.bareUndiciLoopPerSecond);
    line(x0, y(5000), x0 + 300, y(5000), 'stroke="#dc2626" stroke-dasharray="6 4"');
    text(x0 + 302, y(5000) + 4, 'goal 5,000/s', 'font-size="11" fill="#dc2626"');
    if (goal > 5000) {
      line(x0, y(goal), x0 + 300, y(goal), 'stroke="#f59e0b" stroke-dasharray="2 3"');
      text(x0 + 302, y(goal) + 4, `0.4 × loop`, 'font-size="11" fill="#b45309"');
    }
    const ratios = perCore
      ? `${fan.ratio} (×${processes}), ${perCore.ratio} (×${perCore.dispatcherProcesses})`
      : fan.ratio;
    text(x0, y0 + 40, `ratio to the loop (one process) ${ratios} (goal ≥ 0.4)`, 'font-size="12"');
  }

  // ---- right panel: latency p99 per 5 s window ----
  const series = [
    ['one webhook', results.latencyOneWebhook, '#2563eb'],
    ['9 healthy + 1 never answering', results.latencyWithBlackHole, '#7c3aed'],
  ].filter(([, r]) => r?.p99By5s?.length);
  if (series.length) {
    const x0 = 490;
    const y0 = 280;
    const w = 360;
    const h = 220;
    const worst = Math.max(...series.flatMap(([, r]) => r.p99By5s), 100);
    const max = Math.ceil((worst * 1.1) / 50) * 50;
    const windows = Math.max(...series.map(([, r]) => r.p99By5s.length));
    const y = (v) => y0 - (Math.min(v, max) / max) * h;
    const x = (i) => x0 + (windows === 1 ? 0 : (i / (windows - 1)) * w);
    const processes = series[0][1].dispatcherProcesses ?? 1;
    text(
      x0 - 40,
      30,
      `Latency p99 per 5 s window, ms (API answer → arrival; dispatcher ×${processes})`,
      'font-weight="bold"',
    );
    const step = max > 400 ? 100 : 50;
    for (let v = 0; v <= max; v += step) {
      line(x0, y(v), x0 + w, y(v), 'stroke="#e5e7eb"');
      text(x0 - 8, y(v) + 4, v, 'text-anchor="end" font-size="11" fill="#6b7280"');
    }
    for (const [goal, what] of [
      [50, 'goal 50 ms (one webhook)'],
      [100, 'goal 100 ms (with a black hole)'],
    ]) {
      line(x0, y(goal), x0 + w, y(goal), 'stroke="#dc2626" stroke-dasharray="6 4"');
      const below = goal === 50 && y(50) - y(100) < 14;
      text(x0 + w + 4, y(goal) + (below ? 10 : -2), what, 'font-size="10" fill="#dc2626"');
    }
    series.forEach(([label, r, color], k) => {
      const points = r.p99By5s.map((v, i) => `${x(i)},${y(v)}`).join(' ');
      parts.push(`<polyline points="${points}" fill="none" stroke="${color}" stroke-width="2"/>`);
      text(x0, y0 + 20 + k * 16, `${label}: p50 ${r.p50ms} ms, p99 ${r.p99ms} ms`, `font-size="12" fill="${color}"`);
    });
    text(x0 + w, y0 + 52, 'seconds of measured load →', 'text-anchor="end" font-size="11" fill="#6b7280"');
  }

  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" ` +
    `font-family="system-ui, sans-serif" font-size="13">\n<rect width="${W}" height="${H}" fill="#fff"/>\n` +
    `${parts.join('\n')}\n</svg>\n`
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(output, dispatchChart(JSON.parse(readFileSync(input, 'utf8'))));
  console.log(`written ${output}`);
}
