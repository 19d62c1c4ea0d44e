// A dialect defined in IRDL, for --irdl-file: a type with one parameter and
// an operation on it.
irdl.dialect @shapes {
  irdl.type @box {
    %0 = irdl.is i32
    %1 = irdl.is i64
    %2 = irdl.any_of(%0, %1)
    irdl.parameters(%2)
  }
  irdl.operation @grow {
    %0 = irdl.is i32
    %1 = irdl.is i64
    %2 = irdl.any_of(%0, %1)
    %3 = irdl.parametric @shapes::@box<%2>
    irdl.operands(%3)
    irdl.results(%3)
  }
}
