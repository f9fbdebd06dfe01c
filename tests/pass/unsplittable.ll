; An indirect branch with two targets that both have other predecessors: neither edge
; can get a block of its own, and only one of them can have Val 0, so the pass numbers
; no paths in this function (method and loop signals only), and says so.
@targets = constant [2 x i8*] [i8* blockaddress(@two_targets, %a), i8* blockaddress(@two_targets, %b)]

define i32 @two_targets(i32 %x, i32 %k) {
entry:
  %zero = icmp eq i32 %x, 0
  br i1 %zero, label %a, label %dispatch

dispatch:
  %slot = getelementptr [2 x i8*], [2 x i8*]* @targets, i32 0, i32 %k
  %target = load i8*, i8** %slot
  indirectbr i8* %target, [label %a, label %b]

a:
  %p = phi i32 [ 1, %entry ], [ 2, %dispatch ]
  br label %b

b:
  %q = phi i32 [ 3, %dispatch ], [ %p, %a ]
  ret i32 %q
}

; The same with one target shared: its edge is numbered first (Val 0) and needs no
; code, so the function keeps its path signal.
@targets1 = constant [1 x i8*] [i8* blockaddress(@one_target, %a)]

define i32 @one_target(i32 %x) {
entry:
  %zero = icmp eq i32 %x, 0
  br i1 %zero, label %a, label %dispatch

dispatch:
  %target = load i8*, i8** getelementptr ([1 x i8*], [1 x i8*]* @targets1, i32 0, i32 0)
  indirectbr i8* %target, [label %a]

a:
  %p = phi i32 [ 1, %entry ], [ 2, %dispatch ]
  ret i32 %p
}
