import { execFile } from 'node:child_process';
import path from 'node:path';

/** The maintained validator's verdict on a document. */
export interface OpenApiVerdict {
  valid: boolean;
  version?: string;
  errors: unknown;
}

/**
 * Why this exists: @seriousme/openapi-schema-validator is an ES module that
 * jest (CommonJS here) cannot load, so the tests run it in a child Node
 * process (validate-openapi.mjs) on the document.
 */
export function validateOpenApi(document: unknown): Promise<OpenApiVerdict> {
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, [path.join(__dirname, 'validate-openapi.mjs')], (error, stdout, stderr) => {
      if (error) reject(new Error(`validator failed: ${stderr || error.message}`));
      else resolve(JSON.parse(stdout) as OpenApiVerdict);
    });
    child.stdin!.end(JSON.stringify(document));
  });
}
