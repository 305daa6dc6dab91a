/**
 * Passwords in connection URLs (`postgres://user:secret@host/db`, a base URL with `user:key@`) are masked before a
 * command line is stored with a run or printed: provenance lands in exports and reports that get shared.
 */

/** `text` with the password of every `scheme://user:password@` in it replaced by `***`. */
export function redactUrlPasswords(text: string): string {
  // Up to the authority's last '@': a URL parser takes 'sec@ret' in user:sec@ret@host as the password.
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/[^:/?#@\s]*):[^/?#\s]*@/gi, '$1:***@');
}
