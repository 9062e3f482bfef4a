/** The folders under test/ whose files make the temporal tier: jest.config.js and the namespace pool read them. */
module.exports = ['workflow', 'e2e', 'replay', 'fuzz'];
