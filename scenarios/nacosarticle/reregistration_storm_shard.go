package nacosarticle

import "sdchaos/scenarios"

func (s *reregistrationStorm) validateShard(c scenarios.Common) error {
	sh := s.Shard
	external := c.ExternalFlags.Endpoints != "" || c.ExternalFlags.Members != ""
	switch {
	case sh.Sharded() && s.StartAt.IsZero():
		return scenarios.Usagef("--shard %s: give every shard the same --start-at (RFC 3339) so their timelines share a zero", sh.String())
	case external && len(s.ShardEndpoints) > 0:
		return scenarios.Usagef("--shard-endpoints and --endpoints exclude each other: with --endpoints every shard attaches to that cluster")
	case sh.K == 0 && len(s.ShardEndpoints) > 0:
		return scenarios.Usagef("--shard-endpoints is for shards 1…n−1; shard 0 starts the members itself")
	}
	return nil
}

// checkTarget refuses, before anything runs, a shard ≥ 1 that has no
// members to reach. It is not part of validateShard: the external-mode
// flags are not saved with a history, so a saved shard of an external run
// (which merge and recheck parse again) has neither.
func (s *reregistrationStorm) checkTarget(external bool) error {
	if s.Shard.K >= 1 && len(s.ShardEndpoints) == 0 && !external {
		return scenarios.Usagef("--shard %s: give --shard-endpoints, the client URLs of the members shard 0 started (it prints them), or every shard the same --endpoints", s.Shard.String())
	}
	return nil
}

// namespace is the key namespace of a sharded run on a cluster the harness
// did not start: every shard derives the same one from --start-at, so
// that they see each other's registrants and coordination keys ("" lets a
// lone process draw a fresh one).
func (s *reregistrationStorm) namespace(env *scenarios.Env) string {
	if !s.Shard.Sharded() || env.Attach == nil {
		return ""
	}
	return "/sdchaos/storm-" + s.StartAt.UTC().Format("20060102T150405.000Z")
}
