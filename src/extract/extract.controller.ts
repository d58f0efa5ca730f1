import { Body, Controller, Post } from '@nestjs/common';
import { EXTRACT } from '../metering/metered-operation.js';
import { Metered } from '../metering/metered.decorator.js';
import type { WorkOutcome } from '../metering/pipeline/metering-pipeline.js';
import { ExtractRequestDto } from './dto/extract-request.dto.js';
import { ExtractResponseDto } from './dto/extract-response.dto.js';
import { ExtractService } from './extract.service.js';
import { ApiTags } from '@nestjs/swagger';
import { JsonOnly } from '../http/json-only.js';

@Controller()
@ApiTags('Data plane')
export class ExtractController {
  constructor(private readonly extracts: ExtractService) {}

  /** Content of up to 20 URLs; 1 credit per 5 successful URLs (2 at advanced depth), failures free. */
  @Post('extract')
  @JsonOnly()
  @Metered(EXTRACT, ExtractResponseDto)
  extract(@Body() body: ExtractRequestDto): Promise<WorkOutcome<ExtractResponseDto>> {
    return this.extracts.extract(body);
  }
}
