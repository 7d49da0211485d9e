import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freeServerPort } from './ports.js';

/** Where the Debian/Ubuntu package installs RabbitMQ's own scripts (not the /usr/sbin wrappers, which switch user). */
export const RABBITMQ_BIN = process.env.RABBITMQ_BIN ?? '/usr/lib/rabbitmq/bin';

/** The broker settings the platform ships (deploy/rabbitmq/*.conf), applied to every node of a test cluster. */
const SHIPPED_SETTINGS = new URL('../../../deploy/rabbitmq/', import.meta.url);

export interface ClusterNode {
  /** Erlang node name, e.g. `payments-test-1234-1@localhost`. */
  name: string;
  /** AMQP port on 127.0.0.1. */
  port: number;
  /** `amqp://guest:guest@127.0.0.1:<port>` (the default vhost `/`). */
  url: string;
}

export interface RabbitmqCluster {
  nodes: ClusterNode[];
  /** Every node's URL, comma-separated: an `AMQP_URL` for the whole cluster, first node first. */
  amqpUrl: string;
  /** rabbitmqctl against one node (`-n <node>`), with the cluster's cookie. */
  ctl: (node: ClusterNode, ...args: string[]) => Promise<string>;
  /** rabbitmq-queues against one node. */
  queues: (node: ClusterNode, ...args: string[]) => Promise<string>;
  /** The node that leads a quorum queue of the default vhost right now, as the running node `via` sees it. */
  leaderOf: (queue: string, via: ClusterNode) => Promise<ClusterNode>;
  /**
   * Makes the leader of the first quorum queue (default vhost) lead the others too, and answers that node: Ra's
   * leadership transfer, asked of each queue's leader through `via`, waited for in the same call (a loaded machine
   * makes every CLI call slow; one call does it all).
   */
  colocateLeaders: (queues: string[], via: ClusterNode) => Promise<ClusterNode>;
  /**
   * Waits until every member of each quorum queue (default vhost) runs as leader or follower, as `via` sees it, in
   * one CLI call; rejects after `timeoutMs`.
   */
  awaitMembersOnline: (queues: string[], via: ClusterNode, timeoutMs: number) => Promise<void>;
  /** SIGKILL the node's Erlang VM: no goodbye to clients or peers, as when a machine dies. */
  kill: (node: ClusterNode) => Promise<void>;
  /** Starts a node again (after kill); it rejoins the cluster from its data directory. Resolves once it runs. */
  restart: (node: ClusterNode) => Promise<void>;
  /** Kills every node and deletes their files. Safe to call twice, and after a failed start. */
  stop: () => Promise<void>;
}

/** Whether this machine has a RabbitMQ installation to start nodes from (the cluster tests need one). */
export function rabbitmqInstalled(): boolean {
  return existsSync(join(RABBITMQ_BIN, 'rabbitmq-server')) && existsSync(join(RABBITMQ_BIN, 'rabbitmqctl'));
}

/**
 * Starts a RabbitMQ cluster of `size` nodes on this machine from the installed RabbitMQ, beside (never touching)
 * the machine's own broker: each node with its own name (`payments-test-<pid>-<n>@localhost`), AMQP and distribution
 * ports on 127.0.0.1, data and log directories under one temporary directory, no plugins, one Erlang cookie for the
 * cluster (and its CLI calls) only, and the settings the platform ships (deploy/rabbitmq/*.conf, which include the
 * cluster's). No /etc/rabbitmq file applies. Node 1 starts the cluster; the others join it with
 * `rabbitmqctl join_cluster`, as an operator would. `stop()` kills every node and deletes the directory; it also
 * runs when the process exits. The nodes use the platform's documented resource limits: RabbitMQ's default memory
 * watermark (40 % of the machine's memory, for each node) and a disk-free limit of 50 MB — on a test machine the
 * former is far away, the latter matters only on an almost full disk.
 */
export async function startRabbitmqCluster(size = 3): Promise<RabbitmqCluster> {
  try {
    return await startCluster(size);
  } catch (error) {
    // Once more with new ports and directories: a port can still be taken between its check and the node's start.
    process.stderr.write(`RabbitMQ test cluster did not start, trying once more: ${(error as Error).message}\n`);
    return startCluster(size);
  }
}

async function startCluster(size: number): Promise<RabbitmqCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'payments-rabbitmq-cluster-'));
  // One cookie for the cluster's nodes and for the CLI (both read $HOME/.erlang.cookie), written before either runs.
  writeFileSync(join(dir, '.erlang.cookie'), randomBytes(20).toString('hex').toUpperCase(), { mode: 0o400 });
  writeFileSync(join(dir, 'enabled_plugins'), '[].\n');
  writeFileSync(join(dir, 'rabbitmq-env.conf'), '');
  const shipped = readdirSync(SHIPPED_SETTINGS)
    .filter((file) => file.endsWith('.conf'))
    .sort()
    .map((file) => readFileSync(new URL(file, SHIPPED_SETTINGS), 'utf8'));

  const taken = new Set<number>();
  const nodes: (ClusterNode & { env: NodeJS.ProcessEnv; pidFile: string; logDir: string })[] = [];
  for (let n = 1; n <= size; n += 1) {
    const port = await freeServerPort(taken);
    const distPort = await freeServerPort(taken);
    const name = `payments-test-${process.pid}-${n}@localhost`;
    const nodeDir = join(dir, `node${n}`);
    mkdirSync(join(nodeDir, 'conf.d'), { recursive: true });
    writeFileSync(join(nodeDir, 'rabbitmq.conf'), [`listeners.tcp.default = 127.0.0.1:${port}`, ...shipped].join('\n'));
    const pidFile = join(nodeDir, 'pid');
    const logDir = join(nodeDir, 'log');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HOME: dir,
      RABBITMQ_NODENAME: name,
      RABBITMQ_NODE_PORT: String(port),
      RABBITMQ_DIST_PORT: String(distPort),
      RABBITMQ_CONF_ENV_FILE: join(dir, 'rabbitmq-env.conf'),
      RABBITMQ_CONFIG_FILE: join(nodeDir, 'rabbitmq.conf'),
      RABBITMQ_CONFIG_FILES: join(nodeDir, 'conf.d'),
      RABBITMQ_ADVANCED_CONFIG_FILE: join(nodeDir, 'advanced.config'),
      RABBITMQ_ENABLED_PLUGINS_FILE: join(dir, 'enabled_plugins'),
      RABBITMQ_MNESIA_BASE: join(nodeDir, 'mnesia'),
      RABBITMQ_LOG_BASE: logDir,
      RABBITMQ_PID_FILE: pidFile,
      // The distribution listens on loopback only, like the AMQP port.
      RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS: '-kernel inet_dist_use_interface {127,0,0,1}',
      ERL_EPMD_ADDRESS: '127.0.0.1',
    };
    nodes.push({ name, port, url: `amqp://guest:guest@127.0.0.1:${port}`, env, pidFile, logDir });
  }
  const nodeOf = (node: ClusterNode) => nodes.find((candidate) => candidate.name === node.name)!;

  const run = async (tool: string, node: ClusterNode, args: string[], timeoutMs = 120_000) => {
    const { stdout } = await promisify(execFile)(join(RABBITMQ_BIN, tool), ['-n', node.name, ...args], {
      env: nodeOf(node).env,
      timeout: timeoutMs,
    });
    return stdout;
  };
  const ctl = (node: ClusterNode, ...args: string[]) => run('rabbitmqctl', node, args);
  const queues = (node: ClusterNode, ...args: string[]) => run('rabbitmq-queues', node, args);

  const pidOf = (node: ClusterNode): number | undefined => {
    try {
      return Number(readFileSync(nodeOf(node).pidFile, 'utf8').trim()) || undefined;
    } catch {
      return undefined;
    }
  };
  const killNow = (node: ClusterNode) => {
    const pid = pidOf(node);
    if (!pid) return;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };

  let stopped = false;
  const stopNow = () => {
    if (stopped) return;
    stopped = true;
    for (const node of nodes) killNow(node);
    rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  };
  process.once('exit', stopNow);

  const lastLog = (node: ClusterNode) => {
    const crash = (() => {
      try {
        return /^Slogan: .*$/m.exec(readFileSync(join(dir, 'erl_crash.dump'), 'utf8').slice(0, 4_000))?.[0] ?? '';
      } catch {
        return '';
      }
    })();
    try {
      const { logDir } = nodeOf(node);
      const logs = readdirSync(logDir)
        .filter((file) => file.endsWith('.log'))
        .map((file) => readFileSync(join(logDir, file), 'utf8').slice(-2_000));
      return [crash, ...logs].join('\n');
    } catch {
      return crash || '(no log)';
    }
  };

  /** Starts a node's VM (detached; its pid goes to the pid file) and waits until RabbitMQ runs on it. */
  const boot = async (node: ClusterNode) => {
    rmSync(nodeOf(node).pidFile, { force: true });
    // Run from the cluster's directory: a VM that fails at boot writes its erl_crash.dump there.
    execFileSync(join(RABBITMQ_BIN, 'rabbitmq-server'), ['-detached'], {
      cwd: dir,
      env: nodeOf(node).env,
      stdio: 'ignore',
    });
    try {
      await ctl(node, 'wait', nodeOf(node).pidFile, '--timeout', '120');
    } catch (error) {
      throw new Error(
        `RabbitMQ node ${node.name} did not start (${(error as Error).message}); its log:\n${lastLog(node)}`,
        {
          cause: error,
        },
      );
    }
  };

  const waitUntilDead = async (node: ClusterNode) => {
    const pid = pidOf(node);
    for (let i = 0; pid && i < 200; i += 1) {
      try {
        process.kill(pid, 0);
      } catch {
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  const memberNode = (erlangName: string) => {
    const node = nodes.find((candidate) => candidate.name === erlangName);
    if (!node) throw new Error(`${erlangName} is not a node of this cluster`);
    return node;
  };

  /** Each member of a quorum queue of the default vhost with its Raft state (leader, follower, noproc…), per `via`. */
  const membersOf = async (queue: string, via: ClusterNode) => {
    const rows = JSON.parse(await queues(via, 'quorum_status', queue, '--formatter', 'json')) as {
      'Node Name': string;
      'Raft State': string;
    }[];
    return rows.map((row) => ({ node: memberNode(row['Node Name']), state: row['Raft State'] }));
  };
  const leaderOf = async (queue: string, via: ClusterNode) => {
    const leader = (await membersOf(queue, via)).find((member) => member.state === 'leader');
    if (!leader) throw new Error(`${queue} has no leader right now`);
    return leader.node;
  };

  try {
    await Promise.all(nodes.map(boot));
    for (const node of nodes.slice(1)) {
      try {
        await ctl(node, 'stop_app');
        await ctl(node, 'join_cluster', nodes[0].name);
        await ctl(node, 'start_app');
      } catch (error) {
        throw new Error(
          `${node.name} could not join the cluster (${(error as Error).message}); its log:\n${lastLog(node)}`,
          {
            cause: error,
          },
        );
      }
    }
    await ctl(nodes[0], 'await_online_nodes', String(size), '--timeout', '60');
  } catch (error) {
    stopNow();
    throw error;
  }

  return {
    nodes: nodes.map(({ name, port, url }) => ({ name, port, url })),
    amqpUrl: nodes.map((node) => node.url).join(','),
    ctl,
    queues,
    leaderOf,
    colocateLeaders: async ([first, ...others], via) => {
      const pid = (queue: string) =>
        `element(2, {ok, _} = rabbit_amqqueue:lookup(rabbit_misc:r(<<"/">>, queue, <<"${queue}">>)))`;
      const leaderOf = (queue: string) => `amqqueue:get_pid(${pid(queue)})`;
      const answer = await ctl(
        via,
        'eval',
        [
          `{_, Target} = ${leaderOf(first)},`,
          ...others.map(
            (queue) =>
              `{RaName_${others.indexOf(queue)}, _} = L_${others.indexOf(queue)} = ${leaderOf(queue)},` +
              `ra:transfer_leadership(L_${others.indexOf(queue)}, {RaName_${others.indexOf(queue)}, Target}),`,
          ),
          // Wait until each queue's record names the new leader (up to 30 s).
          `Led = fun Wait(0) -> false; Wait(K) -> case lists:all(fun(Q) -> element(2, Q) =:= Target end, [` +
            others.map(leaderOf).join(',') +
            `]) of true -> true; false -> timer:sleep(200), Wait(K - 1) end end,`,
          `{atom_to_list(Target), Led(150)}.`,
        ].join(' '),
      );
      const [, name, led] = /\{"([^"]+)",(true|false)\}/.exec(answer.replace(/\s/g, '')) ?? [];
      if (led !== 'true') throw new Error(`the leaders of ${others.join(', ')} did not move to ${first}'s (${answer})`);
      return memberNode(name);
    },
    awaitMembersOnline: async (queueNames, via, timeoutMs) => {
      const names = queueNames.map((queue) => `<<"${queue}">>`).join(',');
      const answer = await ctl(
        via,
        'eval',
        [
          `AllOnline = fun(Name) -> case rabbit_quorum_queue:status(<<"/">>, Name) of`,
          `  Members when is_list(Members), Members =/= [] -> lists:all(fun(Member) ->`,
          `    lists:member(proplists:get_value(<<"Raft State">>, Member), [leader, follower]) end, Members);`,
          `  _ -> false end end,`,
          `Wait = fun W(0) -> false; W(K) -> case lists:all(AllOnline, [${names}]) of`,
          `  true -> true; false -> timer:sleep(500), W(K - 1) end end,`,
          `Wait(${Math.ceil(timeoutMs / 500)}).`,
        ].join(' '),
      );
      if (answer.trim() !== 'true')
        throw new Error(`not every member of ${queueNames.join(', ')} is online (${answer})`);
    },
    kill: async (node) => {
      killNow(node);
      await waitUntilDead(node);
    },
    restart: boot,
    stop: async () => stopNow(),
  };
}
