// A reference adapter for `chatconform client`: the Vercel AI SDK (`ai`) with one of its providers for this API:
//   node examples/clients/ai-sdk.mjs [compatible|openai]
//   compatible  @ai-sdk/openai-compatible (the default): any server of the chat-completions shape
//   openai      @ai-sdk/openai, the first-party provider, its chat-completions model (provider.chat)
// The SDK has no catalog API, so the catalog is read with fetch; everything else goes through the SDK.
//   npx chatconform client --command "node examples/clients/ai-sdk.mjs openai"
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';

const which = process.argv[2] ?? 'compatible';
const ins = JSON.parse(process.env.CHATCONFORM_INSTRUCTION);
const baseURL = process.env.OPENAI_BASE_URL;
const apiKey = process.env.OPENAI_API_KEY;
// web_search_options is no option of @ai-sdk/openai's chat model: a fetch that adds it to the request body.
const searching = (options) => (url, init) => fetch(url, { ...init, body: JSON.stringify({ ...JSON.parse(init.body), web_search_options: options }) });
// includeUsage (openai-compatible) sends stream_options.include_usage with every stream; @ai-sdk/openai always does.
const chatModel = (id, search) =>
  which === 'openai'
    ? createOpenAI({ baseURL, apiKey, ...(search ? { fetch: searching(search) } : {}) }).chat(id)
    : createOpenAICompatible({ name: 'chatconform', baseURL, apiKey, includeUsage: ins.stream_options?.include_usage === true }).chatModel(id);
const report = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);

/** The instruction's messages (the contract's shape) as the SDK's: image_url parts become image parts. */
const toSdk = (messages) =>
  messages.map((m) =>
    Array.isArray(m.content) ? { ...m, content: m.content.map((p) => (p.type === 'image_url' ? { type: 'image', image: new URL(p.image_url.url) } : p)) } : m,
  );

/** The SDK's errors carry the HTTP error in `lastError` (after retries) or on themselves. */
const errorOf = (err) => {
  const e = err?.lastError ?? err;
  const code = e?.data?.error?.code ?? (() => { try { return JSON.parse(e?.responseBody ?? '').error?.code; } catch { return undefined; } })();
  return { message: String(err?.message ?? err), code: code ?? null, status: e?.statusCode ?? null };
};

try {
  // The live catalog decides the model and what it takes (sections 9 and 4.3): read it first, never hardcode ids.
  const res = await fetch(`${baseURL}/models`, { headers: { authorization: `Bearer ${apiKey}` } });
  const entries = (await res.json()).data;
  if (ins.kind === 'catalog') {
    report({ models: entries });
    process.exit(0);
  }
  const entry = ins.model ? entries.find((e) => e.id === ins.model) : entries.find((e) => ins.needs.every((flag) => e[flag] === true));
  const id = ins.model ?? entry?.id;
  if (!id) throw new Error(`no model of the catalog has ${ins.needs.join(', ')}`);
  const model = chatModel(id);
  const plain = entry?.supports_images === true ? ins.messages : ins.messages.map((m) => (Array.isArray(m.content) ? { ...m, content: m.content.filter((p) => p.type === 'text') } : m));
  const messages = toSdk(plain);

  if (ins.kind === 'stream') {
    let text = '';
    const result = streamText({ model, messages, maxRetries: 2, onError: () => {} });
    for await (const part of result.fullStream) {
      if (part.type === 'text-delta') text += part.text;
      if (part.type === 'error') throw part.error;
    }
    const u = ins.stream_options?.include_usage ? await result.usage : undefined;
    report({ text, model: id, ...(u ? { usage: { prompt_tokens: u.inputTokens, completion_tokens: u.outputTokens } } : {}) });
  } else if (ins.kind === 'tool-loop') {
    const tools = Object.fromEntries(
      ins.tools.map((t) => [t.function.name, tool({ description: t.function.description, inputSchema: jsonSchema(t.function.parameters ?? { type: 'object' }), execute: async () => ins.tool_result })]),
    );
    let result;
    if (ins.stream) {
      result = streamText({ model, messages, tools, stopWhen: stepCountIs(2), maxRetries: 2, onError: () => {} });
      for await (const part of result.fullStream) if (part.type === 'error') throw part.error;
      result = { steps: await result.steps, text: await result.text };
    } else result = await generateText({ model, messages, tools, stopWhen: stepCountIs(2), maxRetries: 2 });
    const calls = result.steps[0]?.toolCalls ?? [];
    report({ text: result.text, model: id, tool_calls: calls.map((c) => ({ id: c.toolCallId, name: c.toolName, arguments: c.input })) });
  } else if (ins.kind === 'search') {
    // web_search_options is not an SDK option: openai-compatible spreads providerOptions.<name> into the body;
    // @ai-sdk/openai gets it from the fetch above.
    const first = await generateText({ model: chatModel(id, ins.web_search_options), messages, maxRetries: 2, providerOptions: { chatconform: { web_search_options: ins.web_search_options } } });
    // The SDK's usage has no search count; the raw body keeps usage.service_web_search_calls.
    const raw = first.response?.body;
    const searches = raw?.usage?.service_web_search_calls ?? null;
    const next = await generateText({ model, messages: [...messages, ...first.response.messages, { role: 'user', content: ins.follow_up }], maxRetries: 2 });
    report({ text: first.text, searches, follow_up_text: next.text, model: id });
  } else {
    const result = await generateText({ model, messages, maxRetries: 2 });
    report({ text: result.text, model: id });
  }
} catch (err) {
  report({ error: errorOf(err) });
}
