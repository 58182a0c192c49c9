import type { Health } from '../lib/api';
import { expect, keepScreenshot, test } from './fixtures';

test('the start page lists the files runs may never read, with their reasons, and says the content check is on', async ({ page, request }) => {
  const health = (await (await request.get('/api/health')).json()) as Health;
  expect(health.readPolicy.secretScan).toBe(true);
  expect(health.readPolicy.removedDefaults).toEqual([]);
  expect(health.readPolicy.denyRules).toContainEqual({ pattern: '.aws', reason: expect.stringContaining('AWS'), source: 'default' });
  const count = health.readPolicy.denyRules.length;
  expect(count).toBeGreaterThan(50);

  await page.goto('/');
  const panel = page.getByTestId('read-policy');
  await expect(panel).toContainText('Files runs may never read');
  await expect(panel).toContainText(`${count} rules`);
  await expect(page.getByTestId('secret-scan')).toContainText('Content check on');
  // Collapsed until asked for.
  const rules = page.getByTestId('deny-rules');
  await expect(rules).toBeHidden();
  await panel.getByText('Files runs may never read').click();
  await expect(rules.locator('li')).toHaveCount(count);
  await expect(rules.locator('li').filter({ hasText: '.git-credentials' })).toContainText("git's stored passwords and tokens");
  await expect(rules.locator('li').filter({ hasText: '.pgpass' }).first()).toContainText('PostgreSQL passwords');
  await keepScreenshot(page, 'start-read-policy');
});
