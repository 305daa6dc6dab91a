/**
 * A run's model endpoint and generation settings as one label, `base-url=http://127.0.0.1:8001/v1, temperature=0.7`
 * ('' for none): what tells apart runs of one model reference that were configured differently (reports, eval sets).
 */
import type { GenerationSettings } from './spec.ts';

export function modelSettingsLabel(baseUrl: string | null, settings: GenerationSettings): string {
  const entries: [string, unknown][] = [
    ...(baseUrl === null ? [] : [['base-url', baseUrl] as [string, unknown]]),
    ...Object.entries(settings).filter(([, value]) => value !== undefined).sort(([left], [right]) => (left < right ? -1 : 1)),
  ];
  return entries.map(([name, value]) => `${name}=${Array.isArray(value) ? JSON.stringify(value) : String(value)}`).join(', ');
}
