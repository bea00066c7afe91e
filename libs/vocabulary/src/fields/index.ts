export * from './built-in-field';
export * from './contact';
export * from './lead';
export * from './account';
export * from './opportunity';
