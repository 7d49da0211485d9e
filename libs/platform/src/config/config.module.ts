import { DynamicModule, Global, InjectionToken, Module } from '@nestjs/common';

/** Makes an app's configuration object injectable everywhere, under its class and any extra tokens. */
@Global()
@Module({})
export class AppConfigModule {
  static forRoot(config: object, tokens: InjectionToken[]): DynamicModule {
    const providers = tokens.map((token) => ({ provide: token, useValue: config }));
    return { module: AppConfigModule, providers, exports: tokens };
  }
}
