export { browserServiceModule } from './module.js';
