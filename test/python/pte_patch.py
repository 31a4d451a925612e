"""Byte-level edits of a .pte program, for tests that need metadata the exporter never writes
(a negative planned-buffer size, a delegate without an id, a dtype numpy lacks).

A minimal flatbuffer reader over runtime/schema/program.fbs: it finds a field's position so a
test can overwrite it in place; every other byte (extended header, segments) stays as it was.
Field numbers are the declaration order in program.fbs (a union takes two: type, then value).
"""

import struct

# program.fbs field numbers.
PROGRAM_EXECUTION_PLAN = 1
PLAN_VALUES = 2
PLAN_INPUTS = 3
PLAN_CHAINS = 5
PLAN_DELEGATES = 7
PLAN_NON_CONST_BUFFER_SIZES = 8
EVALUE_VAL = 1  # 0 is the union's type byte
TENSOR_SCALAR_TYPE = 0
DELEGATE_ID = 0
CHAIN_INSTRUCTIONS = 2
INSTRUCTION_ARGS = 1  # 0 is the union's type byte
KERNEL_CALL_ARGS = 1


class Pte:
    def __init__(self, data: bytes):
        self.data = bytearray(data)

    def _u32(self, pos):
        return struct.unpack_from("<I", self.data, pos)[0]

    def _vtable_slot(self, table, field):
        """Position of the vtable entry of `field` of the table at `table`."""
        vtable = table - struct.unpack_from("<i", self.data, table)[0]
        vsize = struct.unpack_from("<H", self.data, vtable)[0]
        slot = vtable + 4 + 2 * field
        assert slot + 2 <= vtable + vsize, f"field {field} is not in this table's vtable"
        return slot

    def field_pos(self, table, field):
        """Position of a present scalar or offset field of the table at `table`."""
        off = struct.unpack_from("<H", self.data, self._vtable_slot(table, field))[0]
        assert off != 0, f"field {field} is absent"
        return table + off

    def ref(self, table, field):
        """The table, vector or string an offset field points to."""
        pos = self.field_pos(table, field)
        return pos + self._u32(pos)

    def vector(self, table, field):
        """(position of element 0, length) of a vector field."""
        vec = self.ref(table, field)
        return vec + 4, self._u32(vec)

    def table_at(self, table, field, index):
        """Element `index` of a vector-of-tables field."""
        first, n = self.vector(table, field)
        assert index < n, f"index {index} of a vector of {n}"
        pos = first + 4 * index
        return pos + self._u32(pos)

    def plan(self, index=0):
        return self.table_at(self._u32(0), PROGRAM_EXECUTION_PLAN, index)

    def input_tensor(self, plan, index):
        """The Tensor table of input `index` of an execution plan."""
        first, _ = self.vector(plan, PLAN_INPUTS)
        value = struct.unpack_from("<i", self.data, first + 4 * index)[0]
        return self.ref(self.table_at(plan, PLAN_VALUES, value), EVALUE_VAL)

    def input_values(self, plan):
        """The value indices of the plan's inputs."""
        first, n = self.vector(plan, PLAN_INPUTS)
        return [struct.unpack_from("<i", self.data, first + 4 * i)[0] for i in range(n)]

    def kernel_call_args(self, plan, chain=0, index=-1):
        """(position of args[0], length) of the KernelCall at instructions[index] of a chain
        (negative indices count from the end)."""
        c = self.table_at(plan, PLAN_CHAINS, chain)
        if index < 0:
            index += self.vector(c, CHAIN_INSTRUCTIONS)[1]
        instruction = self.table_at(c, CHAIN_INSTRUCTIONS, index)
        return self.vector(self.ref(instruction, INSTRUCTION_ARGS), KERNEL_CALL_ARGS)

    # ---- edits ----
    def set_planned_buffer_size(self, plan, index, size):
        """Entry `index + 1` of non_const_buffer_sizes (entry 0 is reserved)."""
        first, n = self.vector(plan, PLAN_NON_CONST_BUFFER_SIZES)
        assert index + 1 < n, f"the plan has {n - 1} planned buffers"
        struct.pack_into("<q", self.data, first + 8 * (index + 1), size)

    def set_scalar_type(self, tensor, scalar_type):
        struct.pack_into("<b", self.data, self.field_pos(tensor, TENSOR_SCALAR_TYPE), scalar_type)

    def drop_delegate_id(self, plan, index):
        """Marks the delegate's id absent (the vtable entry 0). Vtables may be shared by tables of
        the same layout; the callers check that only the delegate changed."""
        delegate = self.table_at(plan, PLAN_DELEGATES, index)
        struct.pack_into("<H", self.data, self._vtable_slot(delegate, DELEGATE_ID), 0)

    def set_kernel_call_arg(self, plan, arg, value, chain=0, index=-1):
        """Points argument `arg` of a KernelCall (see kernel_call_args) at value `value`."""
        first, n = self.kernel_call_args(plan, chain, index)
        assert 0 <= arg < n, f"the call has {n} arguments"
        struct.pack_into("<i", self.data, first + 4 * arg, value)

    def bytes(self):
        return bytes(self.data)
