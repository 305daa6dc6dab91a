/** Number formatting shared by every report format, so the table, CSV and HTML agree. */

export function formatPercent(fraction: number): string {
  return `${(fraction * 100).toFixed(1)}%`;
}

export function formatInterval(interval: readonly number[]): string {
  return `[${formatPercent(interval[0])}, ${formatPercent(interval[1])}]`;
}

/** Integers as they are; other numbers to 4 significant decimals without trailing zeros. */
export function formatNumber(value: number): string {
  if (Number.isInteger(value)) return String(value);
  // A rate over no cases (recovery when no call had a schema error): there is nothing to show, as JSON's null says.
  if (Number.isNaN(value)) return 'n/a';
  if (!Number.isFinite(value)) return String(value);
  return String(Number(value.toFixed(4)));
}

export function formatCell(value: string | number | null): string {
  if (value === null) return '';
  return typeof value === 'number' ? formatNumber(value) : value;
}
/** `core=5 depth=3`, or '-' for a run outside a sweep. */
export function sweepPointLabel(point: Readonly<Record<string, unknown>> | undefined): string {
  return point ? Object.entries(point).map(([name, value]) => `${name}=${String(value)}`).join(' ') : '-';
}
