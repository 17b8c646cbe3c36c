// What the worker pool (src/workers/pool.ts) runs on its threads: the CPU-heavy steps of requests
// anyone can send. Each thread loads this module once; nothing here touches the database or the
// network. Plain data in and out (structured clone): no class instances cross the thread boundary.
import { recoverTypedDataAddress, type Hex, type TypedDataDefinition } from "viem";

export interface RecoverTypedDataTask {
  kind: "recoverTypedDataAddress";
  typedData: TypedDataDefinition;
  signature: Hex;
}

export type WorkTask = RecoverTypedDataTask;

/** The address that signed, or null when the signature is no valid ECDSA signature of the data. */
export async function recoverSigner(task: RecoverTypedDataTask): Promise<Hex | null> {
  try {
    return await recoverTypedDataAddress({ ...task.typedData, signature: task.signature });
  } catch {
    return null;
  }
}

export default function run(task: WorkTask): Promise<Hex | null> {
  switch (task.kind) {
    case "recoverTypedDataAddress":
      return recoverSigner(task);
  }
}
