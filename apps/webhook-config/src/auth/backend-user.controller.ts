import { Body, Controller, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { resourceId } from '../http/resource-id.pipe.js';
import { BackendUserService, type BackendUserView } from './backend-user.service.js';
import { CreateBackendUserDto } from './dtos/create-backend-user.dto.js';
import { PlatformTokenGuard } from '#platform';

/** Platform (internal) API: merchant backend logins (CONTRACT §2). */
@ApiTags('platform')
@ApiBearerAuth()
@UseGuards(PlatformTokenGuard)
@Controller('internal/merchants/:merchantId/users')
export class BackendUserController {
  constructor(private readonly users: BackendUserService) {}

  @Post()
  @HttpCode(201)
  create(
    @Param('merchantId', resourceId('merchant')) merchantId: string,
    @Body() body: CreateBackendUserDto,
  ): Promise<BackendUserView> {
    return this.users.create(merchantId, body);
  }
}
