/**
 * The program as QuickJS runs it: the model's code becomes the body of an async function, so top-level `await`
 * and `return` work. Static imports of the modules `require` knows are rewritten to `require` calls on the same
 * line (line numbers in errors stay right); any other `import` stays and fails as the SyntaxError it is.
 */
const importDefault = /^(\s*)import\s+([A-Za-z_$][\w$]*)\s+from\s*(['"])([^'"]+)\3\s*;?\s*$/;
const importNamespace = /^(\s*)import\s+\*\s+as\s+([A-Za-z_$][\w$]*)\s+from\s*(['"])([^'"]+)\3\s*;?\s*$/;
const importNamed = /^(\s*)import\s+\{([^}]*)\}\s+from\s*(['"])([^'"]+)\3\s*;?\s*$/;
const importBare = /^(\s*)import\s*(['"])([^'"]+)\2\s*;?\s*$/;

export function rewriteStaticImports(code: string): string {
  return code.split('\n').map((line) => {
    let match = importDefault.exec(line) ?? importNamespace.exec(line);
    if (match) return `${match[1]}const ${match[2]} = require(${JSON.stringify(match[4])});`;
    match = importNamed.exec(line);
    if (match) {
      const names = match[2].split(',').map((name) => name.trim()).filter(Boolean)
        .map((name) => name.replace(/\s+as\s+/, ': '));
      return `${match[1]}const { ${names.join(', ')} } = require(${JSON.stringify(match[4])});`;
    }
    match = importBare.exec(line);
    if (match) return `${match[1]}require(${JSON.stringify(match[3])});`;
    return line;
  }).join('\n');
}

/** The source QuickJS compiles: an async arrow whose body is the program. */
export function wrapProgram(code: string): string {
  return `(async () => {\n${rewriteStaticImports(code)}\n})`;
}
