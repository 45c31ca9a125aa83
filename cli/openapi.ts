// `chatconform openapi`: the OpenAPI 3.1 document of the three endpoints (spec/openapi.ts), as JSON on stdout.
import { Command } from 'commander';
import { openApiDocument } from '../spec/openapi.ts';

export function openapiCommand(): Command {
  return new Command('openapi')
    .description('print an OpenAPI 3.1 document (JSON) of the three endpoints, built from the kit\'s JSON Schemas')
    .action(() => {
      process.stdout.write(`${JSON.stringify(openApiDocument(), null, 2)}\n`);
    });
}
