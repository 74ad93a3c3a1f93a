package netns

// ArmParentDeath is armParentDeath, for the tests of package netns_test.
var ArmParentDeath = armParentDeath
