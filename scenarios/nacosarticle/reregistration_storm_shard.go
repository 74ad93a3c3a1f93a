package nacosarticle

import "sdchaos/scenarios"

func (s *reregistrationStorm) validateShard() error {
	sh := s.Shard
	switch {
	case sh.Sharded() && s.StartAt.IsZero():
		return scenarios.Usagef("--shard %s: give every shard the same --start-at (RFC 3339) so their timelines share a zero", sh.String())
	case sh.K >= 1 && len(s.ShardEndpoints) == 0:
		return scenarios.Usagef("--shard %s: give --shard-endpoints, the client URLs of the members shard 0 started (it prints them)", sh.String())
	case sh.K == 0 && len(s.ShardEndpoints) > 0:
		return scenarios.Usagef("--shard-endpoints is for shards 1…n−1; shard 0 starts the members itself")
	}
	return nil
}
