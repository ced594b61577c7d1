import * as v from 'valibot';

type AnyVariant = v.VariantSchema<string, v.VariantOptions<string>, v.ErrorMessage<v.VariantIssue> | undefined>;
type Option = AnyVariant['options'][number];

/**
 * `variant` with its options found by the discriminator's value. valibot's variant runs every
 * option's discriminator schema, in turn, for every value it checks. A literal that a single
 * option claims, and that no other option's discriminator accepts, can match only that option.
 * So such a value runs that option alone, which yields the same dataset the variant would return.
 * Any other value (a missing key, an unknown type, the wrong type) goes through the variant itself,
 * so its issues are still the variant's own. Options that are themselves variants are left to the
 * variant.
 */
export function indexedVariant<const TVariant extends AnyVariant>(variant: TVariant): v.GenericSchema<v.InferInput<TVariant>, v.InferOutput<TVariant>, v.InferIssue<TVariant>> {
  const key = variant.key;
  const byValue = new Map<unknown, Option>();
  for (const option of variant.options) {
    const discriminator = option.type === 'variant' ? undefined : option.entries[key];
    if (discriminator?.type === 'literal') byValue.set((discriminator as v.LiteralSchema<v.Literal, undefined>).literal, option);
  }
  for (const option of variant.options) {
    for (const [value, owner] of byValue) {
      if (option === owner) continue;
      // A nested variant, or another option that would take this value too (a literal two
      // options share among them): the variant decides.
      const other = option.type === 'variant' ? undefined : option.entries[key];
      if (!other || v.is(other, value)) byValue.delete(value);
    }
  }
  if (byValue.size === 0) return variant;
  return v.lazy((input) => {
    const value = typeof input === 'object' && input !== null ? (input as Record<string, unknown>)[key] : undefined;
    return (byValue.get(value) ?? variant) as v.GenericSchema;
  }) as unknown as v.GenericSchema<v.InferInput<TVariant>, v.InferOutput<TVariant>, v.InferIssue<TVariant>>;
}
