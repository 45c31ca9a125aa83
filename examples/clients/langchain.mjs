// A reference adapter for `chatconform client`: LangChain JS (`@langchain/openai`'s ChatOpenAI). LangChain has no
// catalog API, so the catalog is read with fetch; everything else goes through ChatOpenAI.
//   npx chatconform client --command "node examples/clients/langchain.mjs"
import { ChatOpenAI } from '@langchain/openai';

const ins = JSON.parse(process.env.CHATCONFORM_INSTRUCTION);
const baseURL = process.env.OPENAI_BASE_URL;
const apiKey = process.env.OPENAI_API_KEY;
const report = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);
const textOf = (m) => (typeof m.content === 'string' ? m.content : m.content.map((p) => p.text ?? '').join(''));

try {
  // The live catalog decides the model and what it takes (sections 9 and 4.3): read it first, never hardcode ids.
  const entries = (await (await fetch(`${baseURL}/models`, { headers: { authorization: `Bearer ${apiKey}` } })).json()).data;
  if (ins.kind === 'catalog') {
    report({ models: entries });
    process.exit(0);
  }
  const entry = ins.model ? entries.find((e) => e.id === ins.model) : entries.find((e) => ins.needs.every((flag) => e[flag] === true));
  const model = ins.model ?? entry?.id;
  if (!model) throw new Error(`no model of the catalog has ${ins.needs.join(', ')}`);
  const messages = entry?.supports_images === true ? ins.messages : ins.messages.map((m) => (Array.isArray(m.content) ? { ...m, content: m.content.filter((p) => p.type === 'text') } : m));
  // maxRetries 2, as the other SDKs: LangChain's default (6, with backoff) outlasts a scenario's time bound.
  const llm = (extra = {}) => new ChatOpenAI({ model, apiKey, configuration: { baseURL }, maxRetries: 2, ...extra });

  if (ins.kind === 'stream') {
    let text = '';
    let usage;
    // streamUsage sends stream_options.include_usage; the usage arrives as usage_metadata on a chunk.
    for await (const chunk of await llm({ streaming: true, streamUsage: ins.stream_options?.include_usage === true }).stream(messages)) {
      text += textOf(chunk);
      if (chunk.usage_metadata) usage = { prompt_tokens: chunk.usage_metadata.input_tokens, completion_tokens: chunk.usage_metadata.output_tokens };
    }
    report({ text, model, ...(usage ? { usage } : {}) });
  } else if (ins.kind === 'tool-loop') {
    const bound = llm(ins.stream ? { streaming: true } : {}).bindTools(ins.tools);
    // Streamed, the chunks are merged by LangChain's own concat (tool-call chunks joined by index).
    const ask = async (msgs) => {
      if (!ins.stream) return bound.invoke(msgs);
      let acc;
      for await (const chunk of await bound.stream(msgs)) acc = acc === undefined ? chunk : acc.concat(chunk);
      return acc;
    };
    const ai = await ask(messages);
    const calls = ai.tool_calls ?? [];
    const results = calls.map((c) => ({ role: 'tool', tool_call_id: c.id, content: ins.tool_result }));
    const final = await ask([...messages, ai, ...results]);
    // LangChain decodes function.arguments into `args` (2.4).
    report({ text: textOf(final), model, tool_calls: calls.map((c) => ({ id: c.id, name: c.name, arguments: c.args })) });
  } else if (ins.kind === 'search') {
    // web_search_options is not a ChatOpenAI field: modelKwargs go into the request body as they are.
    const first = await llm({ modelKwargs: { web_search_options: ins.web_search_options }, __includeRawResponse: true }).invoke(messages);
    const raw = first.additional_kwargs?.__raw_response;
    const searches = raw?.usage?.service_web_search_calls ?? null;
    const next = await llm().invoke([...messages, { role: 'assistant', content: textOf(first) }, { role: 'user', content: ins.follow_up }]);
    report({ text: textOf(first), searches, follow_up_text: textOf(next), model });
  } else {
    report({ text: textOf(await llm().invoke(messages)), model });
  }
} catch (err) {
  report({ error: { message: String(err?.message ?? err), code: err?.code ?? err?.error?.code ?? null, status: err?.status ?? null } });
}
