// `chatconform/spec` (and `chatconform`): the contract as data. The JSON Schemas and their one validator, the
// requirements catalog (with the digest and section titles of the contract it was made from), and the OpenAPI
// document built from the schemas.
export * from './validator.ts';
export * from './requirements/index.ts';
export { API_SCHEMAS, componentName, openApiDocument } from './openapi.ts';
export { LISTED_FIELDS } from './listed-fields.ts';
