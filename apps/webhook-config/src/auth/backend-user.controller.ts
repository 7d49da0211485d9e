import { Body, Controller, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiProblems } from '../http/problem.doc.js';
import { BackendUserDoc } from './backend-user.doc.js';
import { resourceId } from '../http/resource-id.pipe.js';
import { BackendUserService, type BackendUserView } from './backend-user.service.js';
import { CreateBackendUserDto } from './dtos/create-backend-user.dto.js';
import { PlatformTokenGuard } from '#platform';

/** Platform (internal) API, for the platform's processing core only: merchant backend logins. */
@ApiTags('platform')
@ApiBearerAuth('platform')
@ApiProblems([400, 401, 413, 415, 503])
@UseGuards(PlatformTokenGuard)
@Controller('internal/merchants/:merchantId/users')
export class BackendUserController {
  constructor(private readonly users: BackendUserService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Create a merchant backend login',
    description: 'The e-mail identifies the login across all merchants. Password: 10–256 characters, not only spaces.',
  })
  @ApiParam({ name: 'merchantId', format: 'uuid' })
  @ApiCreatedResponse({ type: BackendUserDoc })
  @ApiProblems([404, 409], { 404: 'No merchant has this id.', 409: 'The e-mail address has a login already.' })
  create(
    @Param('merchantId', resourceId('merchant')) merchantId: string,
    @Body() body: CreateBackendUserDto,
  ): Promise<BackendUserView> {
    return this.users.create(merchantId, body);
  }
}
