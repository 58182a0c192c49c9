import type { PlanProfile as ProfileName } from '../../../lib/events';
import { filePlans } from './file';
import { generalPlans } from './general';
import type { PlanProfile } from './profile';

export const PLAN_PROFILES: Record<ProfileName, PlanProfile> = { file: filePlans, general: generalPlans };
