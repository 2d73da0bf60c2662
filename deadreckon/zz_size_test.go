package deadreckon

import (
	"testing"
	"unsafe"
)

func TestZZSize(t *testing.T) {
	var a Actor
	t.Logf("Actor %d %%64=%d lk %d vl %d rk %d clampCfg %d clamp %d c %d", unsafe.Sizeof(a), unsafe.Sizeof(a)%64, unsafe.Offsetof(a.lk), unsafe.Offsetof(a.vl), unsafe.Offsetof(a.rk), unsafe.Offsetof(a.clampCfg), unsafe.Offsetof(a.clamp), unsafe.Offsetof(a.c))
}
