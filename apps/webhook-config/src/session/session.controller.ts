import { Body, Controller, Delete, Get, HttpCode, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ProblemException } from '#platform';
import { ApiProblems } from '../http/problem.doc.js';
import { SignInDto } from './dtos/sign-in.dto.js';
import { CurrentSession, type SessionContext } from './session.context.js';
import { SessionCookie } from './session.cookie.js';
import { SessionDoc } from './session.doc.js';
import { SessionGuard } from './session.guard.js';
import { ApiSession } from './session.openapi.js';
import { SessionService } from './session.service.js';
import type { SessionView } from './session.view.js';

/** Merchant backend sign-in and sign-out: a session cookie and the CSRF token every mutating request carries. */
@ApiTags('session')
@ApiProblems([503])
@Controller('api/session')
export class SessionController {
  constructor(
    private readonly sessions: SessionService,
    private readonly cookie: SessionCookie,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Sign in',
    description: 'Sets the session cookie `wc_session` (HttpOnly, SameSite=Strict) and answers the CSRF token.',
    // Needs no credentials: it issues them.
    security: [],
  })
  @ApiOkResponse({ type: SessionDoc })
  @ApiProblems([400, 401, 413, 415, 429], {
    401: 'The e-mail address or the password is not correct (one answer for both).',
    429:
      'Too many failed sign-ins for this e-mail from this client address, from this client address, or for this ' +
      'e-mail from addresses that have not signed in to it before; `Retry-After` says when to try again.',
  })
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
  @ApiOperation({ summary: 'The signed-in user and the CSRF token' })
  @ApiSession('GET')
  @ApiOkResponse({ type: SessionDoc })
  current(@CurrentSession() session: SessionContext): SessionView {
    return { email: session.email, csrfToken: this.sessions.csrfTokenOf(session) };
  }

  @Delete()
  @HttpCode(204)
  @UseGuards(SessionGuard)
  @ApiOperation({ summary: 'Sign out', description: 'Ends the session in every process and clears the cookie.' })
  @ApiSession('DELETE')
  @ApiNoContentResponse({ description: 'Signed out.' })
  async signOut(
    @CurrentSession() session: SessionContext,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<void> {
    await this.sessions.signOut(session);
    this.cookie.clear(request, reply);
  }
}
