/** Left-aligned columns, as wide as their widest cell, two spaces apart (the operator commands' tables). */
export function textTable(rows: readonly (readonly string[])[]): string {
  if (rows.length === 0) return '';
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((row) => row[col]!.length)));
  return rows.map((row) => row.map((cell, col) => cell.padEnd(widths[col]!)).join('  ').trimEnd()).join('\n');
}
