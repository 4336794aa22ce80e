/** Text for an XML attribute or element (XML 1.0: the five escapes, and no control characters). */
export function xmlText(text: string): string {
  // XML 1.0 has no control characters but tab, newline and carriage return.
  const allowed = [...text]
    .map((char) => {
      const code = char.codePointAt(0) ?? 0;
      return (code < 0x20 && ![0x09, 0x0a, 0x0d].includes(code)) ||
        code === 0xfffe ||
        code === 0xffff
        ? '\ufffd'
        : char;
    })
    .join('');
  return allowed
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;');
}

/** One test case of the JUnit report: a check on an operation. */
export interface JunitCase {
  check: string;
  operation: string;
  failure?: { message: string; details: string };
  skipped?: string;
}

/**
 * A JUnit XML report (the format CI servers read): one `testsuite` per operation, one `testcase`
 * per check (its stable id as the name), with the failure's message and full text.
 */
export function junitXml(cases: JunitCase[], seconds: number): string {
  const operations = [...new Set(cases.map((entry) => entry.operation))].sort();
  const count = (list: JunitCase[], what: 'failure' | 'skipped') =>
    list.filter((entry) => entry[what] !== undefined).length;
  const suites = operations.map((operation) => {
    const own = cases.filter((entry) => entry.operation === operation);
    const testcases = own.map((entry) => {
      const open = `    <testcase classname="${xmlText(operation)}" name="${xmlText(entry.check)}">`;
      if (entry.failure) {
        return `${open}\n      <failure message="${xmlText(entry.failure.message)}" type="${xmlText(entry.check)}">${xmlText(entry.failure.details)}</failure>\n    </testcase>`;
      }
      if (entry.skipped !== undefined)
        return `${open}\n      <skipped message="${xmlText(entry.skipped)}"/>\n    </testcase>`;
      return `${open}</testcase>`;
    });
    return `  <testsuite name="${xmlText(operation)}" tests="${own.length}" failures="${count(own, 'failure')}" skipped="${count(own, 'skipped')}">\n${testcases.join('\n')}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="institution-api-conformance" tests="${cases.length}" failures="${count(cases, 'failure')}" skipped="${count(cases, 'skipped')}" time="${seconds.toFixed(3)}">\n${suites.join('\n')}\n</testsuites>\n`;
}
