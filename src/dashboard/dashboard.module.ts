import { Module } from '@nestjs/common';
import { DashboardRoutes } from './dashboard-routes.js';

/** The web dashboard: served at DASHBOARD_URL's path, talking only to the control-plane and finance routes. */
@Module({ providers: [DashboardRoutes] })
export class DashboardModule {}
