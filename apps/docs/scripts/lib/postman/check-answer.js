// Postman's collection-level test script (run after every request of the collection, one added
// by the user included): the answer against the spec. The build puts `operations` before this
// text: each operation's method, its path as a pattern, and for each status it documents the
// media type and the schema of the body (the spec's, for the JSON Schema draft 07 of Postman's
// `jsonSchema` assertion).
const path = pm.request.url.getPath();
const operation = operations.find(
  (each) => each.method === pm.request.method && new RegExp(each.pattern).test(path),
);
if (operation) {
  const status = String(pm.response.code);
  const answer = operation.responses[status];
  pm.test(`${operation.operationId}: ${status} is a status the spec documents`, () => {
    pm.expect(Object.keys(operation.responses)).to.include(status);
  });
  if (answer?.mediaType) {
    pm.test(`${operation.operationId} ${status}: Content-Type ${answer.mediaType}`, () => {
      pm.expect(pm.response.headers.get('Content-Type') || '').to.include(answer.mediaType);
    });
    pm.test(`${operation.operationId} ${status}: the body matches the spec's schema`, () => {
      pm.response.to.have.jsonSchema(answer.schema);
    });
  }
}
