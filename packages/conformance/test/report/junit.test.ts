/**
 * The JUnit report CI servers read (report/junit.ts): one suite per operation, one case per
 * check, failures and skips counted, and any text made safe for XML 1.0.
 */
import { describe, expect, it } from 'vitest';
import { junitXml, xmlText } from '../../src/report/junit.js';

describe('xmlText', () => {
  it.each([
    ['a < b & "c" \'d\' > e', 'a &lt; b &amp; &quot;c&quot; &apos;d&apos; &gt; e'],
    ['tab\tnewline\ncr\r', 'tab\tnewline\ncr\r'],
    ['nul\u0000 bell\u0007', 'nul\ufffd bell\ufffd'],
    ['\uffff', '\ufffd'],
    ['Ɔsei 👋🏾', 'Ɔsei 👋🏾'],
  ])('%j as %j', (text, escaped) => {
    expect(xmlText(text)).toBe(escaped);
  });
});

describe('junitXml', () => {
  const xml = junitXml(
    [
      { check: 'not_a_server_error', operation: 'updateUser' },
      {
        check: 'status_code_conformance',
        operation: 'createUser',
        failure: { message: 'answered 500 <oops>', details: 'POST /users\n500' },
      },
      { check: 'stateful_institution_scope', operation: 'createUser', skipped: 'one institution' },
    ],
    1.23456,
  );

  it('counts every case, failure and skip, with the run time', () => {
    expect(xml).toMatch(
      /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="institution-api-conformance" tests="3" failures="1" skipped="1" time="1\.235">/,
    );
  });

  it('gives each operation its suite, in order, with its own counts', () => {
    expect(
      [
        ...xml.matchAll(/<testsuite name="(\w+)" tests="(\d)" failures="(\d)" skipped="(\d)">/g),
      ].map((m) => m.slice(1)),
    ).toEqual([
      ['createUser', '2', '1', '1'],
      ['updateUser', '1', '0', '0'],
    ]);
  });

  it("carries a failure's message and text, escaped, and a skip's reason", () => {
    expect(xml).toContain(
      '<failure message="answered 500 &lt;oops&gt;" type="status_code_conformance">POST /users\n500</failure>',
    );
    expect(xml).toContain('<skipped message="one institution"/>');
  });
});
