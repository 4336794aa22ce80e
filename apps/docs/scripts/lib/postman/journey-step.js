// Test script of a request of the journey. The build puts `step` before this text: the status
// the request must answer and why, whether it creates the user (`saves`), must answer the user
// created first (`sameId`), and the details it sent that the answer must carry (`sent`).
pm.test(`${step.status}: ${step.why}`, () => {
  pm.response.to.have.status(step.status);
});
const answer = pm.response.json();
if (step.saves) {
  pm.test("the answer carries the new user's id", () => {
    pm.expect(answer.id).to.be.a('string').and.not.empty;
  });
  pm.collectionVariables.set(step.saves, answer.id);
}
if (step.sameId) {
  pm.test('the same user: the id the first request created', () => {
    pm.expect(answer.id).to.eql(pm.collectionVariables.get('userId'));
  });
}
if (step.sent) {
  pm.test('the details as sent', () => {
    for (const [field, value] of Object.entries(step.sent)) {
      pm.expect(answer[field], field).to.eql(pm.variables.replaceIn(value));
    }
  });
}
