import { escapeHtml, pageShell } from '../render-html.ts';

/** The viewer's page frame: inline CSS, no script, nothing fetched; a top bar back to the runs. */
export function viewerShell(title: string, body: readonly string[]): string {
  return pageShell(title, ['<nav class="top"><a href="/">ToolForge runs</a></nav>', ...body], style);
}

/** `<a>` with an escaped href and text. */
export function link(href: string, text: string, attributes = ''): string {
  return `<a href="${escapeHtml(href)}"${attributes ? ` ${attributes}` : ''}>${escapeHtml(text)}</a>`;
}

export function runPath(runId: string): string {
  return `/runs/${encodeURIComponent(runId)}`;
}

export function sweepPath(group: string): string {
  return `/sweeps/${encodeURIComponent(group)}`;
}

/** Task ids hold slashes; each segment is encoded so the id survives the URL. */
export function taskPath(runId: string, taskId: string): string {
  return `${runPath(runId)}/tasks/${taskId.split('/').map(encodeURIComponent).join('/')}`;
}

const style = [
  'body{font-family:system-ui,sans-serif;margin:1rem auto;max-width:90rem;padding:0 1rem;color:#1b1b1b}',
  'nav.top{font-size:0.9rem;margin-bottom:0.5rem}',
  'nav.pager a,nav.pager span{margin-right:1rem}',
  'table{border-collapse:collapse;margin:0.75rem 0;font-size:0.9rem}',
  'caption{text-align:left;font-weight:600}',
  'th,td{border-bottom:1px solid #ddd;padding:0.25rem 0.6rem;text-align:left;vertical-align:top}',
  'td.number{text-align:right;font-variant-numeric:tabular-nums}',
  'td.interval{white-space:nowrap}',
  'tr.passed td.verdict{color:#1f7a35}',
  'tr.failed td.verdict{color:#b3261e}',
  'form.filters{display:flex;flex-wrap:wrap;gap:0.75rem;align-items:end;background:#f5f5f5;padding:0.75rem;border-radius:4px}',
  'form.filters label{display:flex;flex-direction:column;font-size:0.8rem}',
  'pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:0.25rem 0;font-size:0.85rem}',
  'table.expected-actual{table-layout:fixed;width:100%}',
  'table.expected-actual caption{text-align:left;font-weight:600}',
  '.columns{display:grid;grid-template-columns:1fr 1fr;gap:1rem}',
  '.columns>div{min-width:0}',
  '.panel{border:1px solid #ddd;border-radius:4px;padding:0.5rem 0.75rem;margin:0.5rem 0}',
  '.message{border-left:3px solid #ccc;padding:0.25rem 0.75rem;margin:0.5rem 0}',
  '.message.assistant{border-color:#4269d0}',
  '.message.tool.ok{border-color:#3ca951}',
  '.message.tool.error{border-color:#ff725c}',
  'pre.call{color:#4269d0}',
  '.failing{background:#ffe3df;outline:2px solid #b3261e}',
  '.verdict-passed{color:#1f7a35}',
  '.verdict-failed{color:#b3261e}',
].join('');
