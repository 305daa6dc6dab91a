/** A client or program name as a model id: `Claude Code` -> `claude-code`. */
export function modelName(clientName: string): string {
  return clientName.trim().toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'client';
}
