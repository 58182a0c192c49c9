import { describe, expect, it } from 'vitest';
import { EvalSuite, type EvalTask } from '../../../lib/eval';
import { caseIdOf, factsToText, linesOf, textToFacts, withCase } from '../../../lib/eval-case';

const task = (id: string): EvalTask => ({ id, category: 'from-run', task: 'Where?', mustState: ['a'], mustNotState: [], mustRead: [], refusalOk: false });

describe('evaluation cases as a person edits them', () => {
  it('writes facts one a line, alternatives joined by " | ", and reads them back', () => {
    const facts = ['OLLAMA_HOST', ['60000', '60 s']];
    expect(factsToText(facts)).toBe('OLLAMA_HOST\n60000 | 60 s');
    expect(textToFacts(factsToText(facts))).toEqual(facts);
    expect(textToFacts('  one  \n\n two |  three \n a|b ')).toEqual(['one', ['two', 'three'], 'a|b']);
    expect(linesOf(' src/a.ts \n\n src/b.ts')).toEqual(['src/a.ts', 'src/b.ts']);
  });

  it('makes a case id the suite schema takes from any task', () => {
    expect(caseIdOf('How is the model endpoint configured, and where?')).toBe('how-is-the-model-endpoint-configured');
    expect(caseIdOf('¿Qué? ¡Nada!')).toBe('qu-nada');
    expect(caseIdOf('…')).toBe('case');
    expect(caseIdOf('x'.repeat(100))).toHaveLength(48);
  });

  it('adds a case to a suite only when its id is new and the schema takes the result', () => {
    const suite = EvalSuite.parse({ name: 's', workspace: '/ws', tasks: [task('one')] });
    expect(withCase(suite, task('two'))).toEqual({ ok: true, suite: { ...suite, tasks: [task('one'), task('two')] } });
    expect(withCase(suite, task('one'))).toEqual({ ok: false, message: expect.stringContaining('already has a case one') });
    expect(withCase(suite, { ...task('three'), mustRead: [''] })).toEqual({ ok: false, message: expect.stringMatching(/^tasks\.1\.mustRead\.0: /) });
  });
});
