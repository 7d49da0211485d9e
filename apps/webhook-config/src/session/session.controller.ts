import { Body, Controller, Delete, Get, HttpCode, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ProblemException } from '#platform';
import { SignInDto } from './dtos/sign-in.dto.js';
import { CurrentSession, type SessionContext } from './session.context.js';
import { SessionCookie } from './session.cookie.js';
import { SessionGuard } from './session.guard.js';
import { SessionService } from './session.service.js';

export interface SessionView {
  email: string;
  csrfToken: string;
}

/** Merchant backend sign-in (CONTRACT §6). */
@ApiTags('session')
@Controller('api/session')
export class SessionController {
  constructor(
    private readonly sessions: SessionService,
    private readonly cookie: SessionCookie,
  ) {}

  @Post()
  @HttpCode(200)
  async signIn(
    @Body() body: SignInDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SessionView> {
    const outcome = await this.sessions.signIn(body.email, body.password, request.ip);
    if (outcome.kind === 'throttled') {
      void reply.header('retry-after', String(outcome.retryAfterSeconds));
      throw new ProblemException(
        429,
        `Too many failed sign-in attempts. Try again in ${Math.ceil(outcome.retryAfterSeconds / 60)} minute(s).`,
      );
    }
    if (outcome.kind === 'invalid')
      throw new ProblemException(401, 'The e-mail address or the password is not correct.');
    this.cookie.set(request, reply, outcome.token);
    return { email: outcome.email, csrfToken: outcome.csrfToken };
  }

  /** Who is signed in, and the CSRF token for this session (for a page that was reloaded). */
  @Get()
  @UseGuards(SessionGuard)
  current(@CurrentSession() session: SessionContext): SessionView {
    return { email: session.email, csrfToken: this.sessions.csrfTokenOf(session) };
  }

  @Delete()
  @HttpCode(204)
  @UseGuards(SessionGuard)
  async signOut(
    @CurrentSession() session: SessionContext,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<void> {
    await this.sessions.signOut(session);
    this.cookie.clear(request, reply);
  }
}
