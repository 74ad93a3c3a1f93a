package storm

import "testing"

func TestShardFlag(t *testing.T) {
	tests := []struct {
		in      string
		ok      bool
		k, n    int
		owns3   bool
		sharded bool
	}{
		{"0/1", true, 0, 1, true, false},
		{"1/2", true, 1, 2, true, true},
		{"0/2", true, 0, 2, false, true},
		{"2/2", false, 0, 0, false, false},
		{"-1/2", false, 0, 0, false, false},
		{"1", false, 0, 0, false, false},
		{"a/b", false, 0, 0, false, false},
	}
	for _, tc := range tests {
		var f Shard
		err := f.Set(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("Set(%q) = %v", tc.in, err)
			continue
		}
		if tc.ok && (f.K != tc.k || f.N != tc.n || f.Owns(3) != tc.owns3 || f.Sharded() != tc.sharded) {
			t.Errorf("Set(%q) = %+v, owns(3) %v", tc.in, f, f.Owns(3))
		}
	}
}

func TestShardMine(t *testing.T) {
	if got := (Shard{K: 1, N: 3}).Mine(10); got != 3 {
		t.Errorf("shard 1/3 of 10 owns %d, want 3 (1, 4, 7)", got)
	}
	if got := (Shard{}).Mine(10); got != 10 {
		t.Errorf("the whole fleet owns %d of 10", got)
	}
}
