// Why this exists: @seriousme/openapi-schema-validator is an ES module that
// jest (CommonJS here) cannot load, so the tests run it in a child Node
// process. Reads an OpenAPI document as JSON on stdin and prints the
// validator's verdict ({valid, version, errors}) as JSON on stdout; the
// validator checks the schema of the version and that every $ref resolves.
import { Validator } from '@seriousme/openapi-schema-validator';

let input = '';
process.stdin.setEncoding('utf8');
for await (const chunk of process.stdin) input += chunk;
const validator = new Validator();
const result = await validator.validate(JSON.parse(input));
process.stdout.write(JSON.stringify({ valid: result.valid, version: validator.version, errors: result.errors ?? null }));
