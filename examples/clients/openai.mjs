// A reference adapter for `chatconform client`: the official `openai` SDK speaking the protocol of
// docs/client-conformance.md (the instruction in CHATCONFORM_INSTRUCTION, one JSON report on stdout), by one of
// the SDK's code paths:
//   node examples/clients/openai.mjs [create|stream-helper|run-tools] [PACKAGE]
//   create         chat.completions.create for everything (streams read chunk by chunk, tool calls assembled here)
//   stream-helper  chat.completions.stream() for every stream (the SDK assembles the answer and its tool calls)
//   run-tools      chat.completions.runTools() for the tool loop (the SDK calls the tool and sends its result)
// PACKAGE: `openai` (6.x, the default) or `openai-v4` (4.x, installed under that alias; its helpers live under beta).
//   npx chatconform client --command "node examples/clients/openai.mjs stream-helper"
const [path = 'create', pkg = 'openai'] = process.argv.slice(2);
const { default: OpenAI } = await import(pkg);

const ins = JSON.parse(process.env.CHATCONFORM_INSTRUCTION);
const client = new OpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY, maxRetries: 2 });
// 6.x has the helpers on chat.completions; 4.x under beta.
const helpers = typeof client.chat.completions.runTools === 'function' ? client.chat.completions : client.beta.chat.completions;
const report = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);
const decoded = (calls) => calls.map((c) => ({ id: c.id, name: c.function.name, arguments: JSON.parse(c.function.arguments) }));

/** A streamed completion read chunk by chunk (create): the text, the calls assembled by index, the usage. */
async function streamed(body) {
  let text = '';
  let usage;
  const calls = [];
  for await (const chunk of await client.chat.completions.create({ ...body, stream: true })) {
    if (chunk.usage) usage = chunk.usage;
    const delta = chunk.choices?.[0]?.delta ?? {};
    text += delta.content ?? '';
    for (const t of delta.tool_calls ?? []) {
      const call = (calls[t.index] ??= { id: t.id, type: 'function', function: { name: '', arguments: '' } });
      if (t.function?.name) call.function.name = t.function.name;
      call.function.arguments += t.function?.arguments ?? '';
    }
  }
  return { message: { role: 'assistant', content: text === '' && calls.length > 0 ? null : text, ...(calls.length > 0 ? { tool_calls: calls.filter(Boolean) } : {}) }, usage };
}

/** The same through the SDK's stream() helper. */
async function helped(body) {
  let usage;
  const stream = helpers.stream(body);
  stream.on('chunk', (chunk) => {
    if (chunk.usage) usage = chunk.usage;
  });
  const final = await stream.finalChatCompletion();
  return { message: final.choices[0].message, usage: usage ?? final.usage };
}

try {
  // The live catalog decides the model and what it takes (sections 9 and 4.3): read it first, never hardcode ids.
  const entries = [];
  for await (const entry of client.models.list()) entries.push(entry);
  if (ins.kind === 'catalog') {
    report({ models: entries });
    process.exit(0);
  }
  const entry = ins.model ? entries.find((e) => e.id === ins.model) : entries.find((e) => ins.needs.every((flag) => e[flag] === true));
  const model = ins.model ?? entry?.id;
  if (!model) throw new Error(`no model of the catalog has ${ins.needs.join(', ')}`);
  // No image part to an entry without supports_images true: send the text parts only.
  const messages = entry?.supports_images === true ? ins.messages : ins.messages.map((m) => (Array.isArray(m.content) ? { ...m, content: m.content.filter((p) => p.type === 'text') } : m));
  const stream = path === 'stream-helper' ? helped : streamed;

  if (ins.kind === 'stream') {
    const { message, usage } = await stream({ model, messages, ...(ins.stream_options ? { stream_options: ins.stream_options } : {}) });
    report({ text: message.content ?? '', model, ...(usage ? { usage } : {}) });
  } else if (ins.kind === 'tool-loop' && path === 'run-tools') {
    // The SDK runs the loop: it decodes the arguments, calls the function, answers each call by its id.
    const tools = ins.tools.map((t) => ({ type: 'function', function: { ...t.function, function: async () => ins.tool_result, parse: JSON.parse } }));
    const runner = helpers.runTools({ model, messages, tools, ...(ins.stream ? { stream: true } : {}) });
    const text = await runner.finalContent();
    const calls = runner.messages.find((m) => m.role === 'assistant' && m.tool_calls?.length)?.tool_calls ?? [];
    report({ text, model, tool_calls: decoded(calls) });
  } else if (ins.kind === 'tool-loop') {
    const ask = async (msgs) => (ins.stream ? (await stream({ model, messages: msgs, tools: ins.tools })).message : (await client.chat.completions.create({ model, messages: msgs, tools: ins.tools })).choices[0].message);
    const first = await ask(messages);
    const calls = (first.tool_calls ?? []).map((c) => ({ id: c.id, type: 'function', function: { name: c.function.name, arguments: c.function.arguments } }));
    const results = calls.map((c) => ({ role: 'tool', tool_call_id: c.id, content: ins.tool_result }));
    const final = await ask([...messages, { role: 'assistant', content: first.content ?? null, tool_calls: calls }, ...results]);
    report({ text: final.content, model, tool_calls: decoded(calls) });
  } else if (ins.kind === 'search') {
    const first = await client.chat.completions.create({ model, messages, web_search_options: ins.web_search_options });
    const answer = first.choices[0].message;
    // annotations and service_web_search are response-only (2.9): the message goes back with its content only.
    const next = await client.chat.completions.create({ model, messages: [...messages, { role: 'assistant', content: answer.content }, { role: 'user', content: ins.follow_up }] });
    report({ text: answer.content, searches: first.usage?.service_web_search_calls ?? 0, follow_up_text: next.choices[0].message.content, model });
  } else {
    const answer = await client.chat.completions.create({ model, messages });
    report({ text: answer.choices[0].message.content, model, usage: answer.usage });
  }
} catch (err) {
  report({ error: { message: String(err?.message ?? err), code: err?.code ?? null, status: err?.status ?? null } });
}
