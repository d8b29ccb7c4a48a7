// The floor the hook is compared with: a bare Node process that long-polls the same wait route with the global
// fetch and exits as soon as the question is answered, printing the choice. Usage: node baseline-waiter.mjs URL TOKEN ID
const [url, token, id] = process.argv.slice(2);
process.stderr.write(`waiting for an answer to interaction ${id}\n`);
for (;;) {
  const response = await fetch(`${url}/v1/interactions/${id}/wait?timeout=60`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const interaction = await response.json();
  if (interaction.status !== "pending") {
    process.stdout.write(`${interaction.response?.choice_id ?? ""}\n`);
    process.exit(0);
  }
}
