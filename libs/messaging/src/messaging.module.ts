import { DynamicModule, Global, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { AmqpClient, type AmqpClientOptions } from './amqp.client.js';

const OPTIONS = Symbol('AMQP_OPTIONS');

@Injectable()
class AmqpLifecycle implements OnApplicationShutdown {
  constructor(private readonly client: AmqpClient) {}
  async onApplicationShutdown(): Promise<void> {
    await this.client.close();
  }
}

/** Provides the app's single AmqpClient, connected (topology declared) before the app starts. */
@Global()
@Module({})
export class MessagingModule {
  static forRoot(options: AmqpClientOptions): DynamicModule {
    return MessagingModule.forRootAsync({ inject: [], useFactory: () => options });
  }

  static forRootAsync(options: {
    inject: unknown[];
    useFactory: (...args: never[]) => AmqpClientOptions;
  }): DynamicModule {
    return {
      module: MessagingModule,
      providers: [
        { provide: OPTIONS, inject: options.inject as never[], useFactory: options.useFactory },
        {
          provide: AmqpClient,
          inject: [OPTIONS],
          useFactory: async (clientOptions: AmqpClientOptions) => {
            const client = new AmqpClient(clientOptions);
            await client.waitForConnect();
            return client;
          },
        },
        AmqpLifecycle,
      ],
      exports: [AmqpClient],
    };
  }
}
