// `chatconform openapi`: the document is OpenAPI 3.1 by a maintained validator (@seriousme/openapi-schema-validator,
// which checks the document against the official 3.1 schema and resolves every $ref), it covers the three
// endpoints and every API schema, and its component schemas still judge what the mock answers.
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect, test } from '@playwright/test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { handlers, MOCK_KEYS, MOCK_MODELS } from '../../entries/msw.ts';
import { API_SCHEMAS, componentName, openApiDocument } from '../../spec/openapi.ts';
import { isIanaTimeZone } from '../../spec/validator.ts';
import { setupServer } from 'msw/node';

type Doc = ReturnType<typeof openApiDocument> & { components: { schemas: Record<string, unknown> }; paths: Record<string, Record<string, unknown>> };

test('the document is valid OpenAPI 3.1 and every reference resolves', async () => {
  const validator = new Validator();
  const result = await validator.validate(openApiDocument() as Parameters<Validator['validate']>[0]);
  expect(result.errors ?? []).toEqual([]);
  expect(result.valid).toBe(true);
  expect(validator.version).toBe('3.1');
});

test('the validator is not a rubber stamp: a dangling reference and a missing field are refused', async () => {
  const doc = structuredClone(openApiDocument()) as Doc;
  delete doc.components.schemas.Usage;
  expect((await new Validator().validate(doc as Parameters<Validator['validate']>[0])).valid).toBe(false);
  const noInfo = structuredClone(openApiDocument()) as Record<string, unknown>;
  delete noInfo.info;
  expect((await new Validator().validate(noInfo as Parameters<Validator['validate']>[0])).valid).toBe(false);
});

test('the three endpoints of section 4, with their security, and every API schema as a component', () => {
  const doc = openApiDocument() as Doc;
  expect(Object.keys(doc.paths).sort()).toEqual(['/v1/chat/completions', '/v1/models', '/v1/models/{model_id}']);
  expect(Object.keys(doc.paths['/v1/models']!)).toEqual(['get']);
  expect(Object.keys(doc.paths['/v1/chat/completions']!)).toEqual(['post']);
  // Optional credential on the catalog (5), required on completions.
  expect((doc.paths['/v1/models']!.get as { security: unknown[] }).security).toEqual([{}, { bearerAuth: [] }]);
  expect((doc.paths['/v1/chat/completions']!.post as { security: unknown[] }).security).toEqual([{ bearerAuth: [] }]);
  expect(Object.keys(doc.components.schemas).sort()).toEqual(API_SCHEMAS.map(componentName).sort());
  expect(JSON.stringify(doc)).not.toMatch(/"\$ref":"(?!#\/components\/schemas\/)/);
  expect(JSON.stringify(doc.components.schemas)).not.toMatch(/"\$id"|"\$schema"|ConformanceReport|Profile/);
});

test('the component schemas judge real answers: a mock completion and model list pass, a broken one fails', async () => {
  const doc = openApiDocument() as Doc;
  const ajv = new Ajv2020({ strict: false, allowUnionTypes: true });
  addFormats(ajv);
  ajv.addFormat('iana-time-zone', { type: 'string', validate: isIanaTimeZone });
  ajv.addSchema({ $id: 'https://openapi.test/doc', components: doc.components });
  const judge = (name: string, data: unknown) => ajv.validate({ $ref: `https://openapi.test/doc#/components/schemas/${name}` }, data);
  const server = setupServer(...handlers);
  server.listen({ onUnhandledRequest: 'error' });
  try {
    const models = await (await fetch('https://mock.example.test/v1/models')).json();
    const chat = await (
      await fetch('https://mock.example.test/v1/chat/completions', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${MOCK_KEYS.full}` },
        body: JSON.stringify({ model: MOCK_MODELS.small, messages: [{ role: 'user', content: 'hi' }] }),
      })
    ).json();
    expect(judge('ModelList', models), JSON.stringify(ajv.errors)).toBe(true);
    expect(judge('ChatResponse', chat), JSON.stringify(ajv.errors)).toBe(true);
    expect(judge('ChatResponse', { ...chat, choices: 'none' })).toBe(false);
    expect(judge('ChatRequest', { model: MOCK_MODELS.small, messages: [{ role: 'user', content: 'hi' }] }), JSON.stringify(ajv.errors)).toBe(true);
    expect(judge('ChatRequest', { messages: [] })).toBe(false);
  } finally {
    server.close();
  }
});
