import { readFileSync } from 'node:fs';

export interface DockerfileInstruction {
  keyword: string;
  args: string;
}

/** The repository's Dockerfile as instructions: continuation lines joined, comments and blank lines dropped. */
export function readDockerfile(path = new URL('../Dockerfile', import.meta.url)): DockerfileInstruction[] {
  return parseDockerfile(readFileSync(path, 'utf8'));
}

export function parseDockerfile(text: string): DockerfileInstruction[] {
  return text
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, '')
    .split('\n')
    .map((line) => /^\s*([A-Za-z]+)\s+(.*)$/.exec(line))
    .filter((match) => match !== null)
    .map(([, keyword, args]) => ({ keyword: keyword.toUpperCase(), args: args.trim() }));
}

/** USER as numbers: `1000:1000` → { uid: 1000, gid: 1000 }; undefined for a name (runAsNonRoot cannot check one). */
export function numericUser(instructions: DockerfileInstruction[]): { uid: number; gid: number } | undefined {
  const users = instructions.filter((instruction) => instruction.keyword === 'USER');
  const match = /^(\d+):(\d+)$/.exec(users.at(-1)?.args ?? '');
  return match ? { uid: Number(match[1]), gid: Number(match[2]) } : undefined;
}
