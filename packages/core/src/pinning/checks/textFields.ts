/** One text of a definition and where it is: a string value, or an object key (`…[key]`). */
export interface TextField {
  field: string;
  text: string;
}

/**
 * Every text of a definition, depth first: string values and object keys (a property name is
 * text the model reads too). Paths are dotted (`inputSchema.properties.path.description`); a
 * key is shown as `inputSchema.properties[path]`.
 */
export function textFields(definition: unknown): TextField[] {
  const out: TextField[] = [];
  walk(definition, "", out);
  return out;
}

function walk(value: unknown, path: string, out: TextField[]): void {
  if (typeof value === "string") {
    out.push({ field: path, text: value });
    return;
  }
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) walk(v, path === "" ? String(i) : `${path}.${i}`, out);
    return;
  }
  if (typeof value !== "object" || value === null) return;
  for (const [key, v] of Object.entries(value)) {
    if (!/^[\w$-]*$/.test(key) || /[^\x20-\x7e]/.test(key))
      out.push({ field: `${path}[${key}]`, text: key });
    walk(v, path === "" ? key : `${path}.${key}`, out);
  }
}
