// Paths as a person reads them: relative to the working directory, the kit's own files by their place in the
// package, never node_modules/chatconform/dist/... (an installed kit's built-in profile, say).
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { displayPath } from '../../run/display-path.ts';

test('a path prints relative to the working directory, or as the kit package\'s own, never through node_modules', () => {
  const project = '/home/u/project';
  const kit = path.join(project, 'node_modules/chatconform/dist');
  expect(displayPath(path.join(kit, 'fixtures/profiles/mock.json'), project, kit)).toBe('chatconform/fixtures/profiles/mock.json');
  expect(displayPath(path.join(kit, 'fixtures/profiles/mock.json'), project, kit, { kitPrefix: false })).toBe('fixtures/profiles/mock.json');
  expect(displayPath(path.join(project, 'profiles/acme.json'), project, kit)).toBe('profiles/acme.json');
  expect(displayPath('/etc/acme/profile.json', project, kit)).toBe('/etc/acme/profile.json');
  // In a clone, the kit's files are the working directory's.
  expect(displayPath('/src/chatconform/fixtures/profiles/mock.json', '/src/chatconform', '/src/chatconform')).toBe('fixtures/profiles/mock.json');
});
